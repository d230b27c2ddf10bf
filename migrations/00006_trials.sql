-- Trials verify that a rented card delivers what was sold (docs/RULES.md
-- §9), and platform terms record
-- the vendor's answers to the six SLA clauses and the five things to get in
-- writing (docs/RULES.md §10).
--
-- Every recording of a trial is kept: check results, pasted nvidia-smi
-- output and performance measurements are append-only (triggers refuse any
-- change), and the latest recording of a check wins. A trial row carries
-- its verdict, recomputed from the latest results in the transaction that
-- records them, so lists filter on it without repeating the rule in SQL.

-- +goose Up

-- One trial of one published quote: the platform and GPU model are the
-- quote's, copied so that lists and the newest measurement per platform ×
-- GPU model need no join through quotes.
CREATE TABLE trials (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    quote_id      bigint      NOT NULL REFERENCES quotes (id),
    platform_id   bigint      NOT NULL REFERENCES platforms (id),
    gpu_model_id  bigint      NOT NULL REFERENCES gpu_models (id),
    started_on    date        NOT NULL,
    note          text        NOT NULL DEFAULT '' CHECK (length(note) <= 2000),
    -- derived from the latest check results (see internal/trial)
    verdict       text        NOT NULL DEFAULT 'in_progress'
                  CHECK (verdict IN ('in_progress', 'pass', 'concerns', 'exit')),
    created_by    bigint      REFERENCES users (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trials_list_idx ON trials (started_on DESC, id DESC);
CREATE INDEX trials_platform_gpu_idx ON trials (platform_id, gpu_model_id);
CREATE INDEX trials_quote_idx ON trials (quote_id);

-- nvidia-smi output pasted into a trial, with what internal/verify read
-- from it at the time (format, samples, each check's outcome and reason as
-- message IDs and arguments), so the page shows what was recorded even
-- after the GPU model's figures change.
CREATE TABLE trial_pastes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trial_id    bigint      NOT NULL REFERENCES trials (id),
    output      text        NOT NULL CHECK (length(output) BETWEEN 1 AND 1048576),
    format      text        NOT NULL DEFAULT '',
    samples     integer     NOT NULL DEFAULT 0 CHECK (samples >= 0),
    checks      jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(checks) = 'array'),
    recorded_by bigint      REFERENCES users (id),
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trial_pastes_trial_idx ON trial_pastes (trial_id, id);

-- Every recording of one of the 30 checks: its state, the evidence (a note,
-- pasted output, a measured figure), the reasons internal/verify gave when
-- it came from a paste, and who recorded it when. Never updated: a
-- correction is a newer row, and the newest row of a check is its state.
CREATE TABLE trial_check_results (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trial_id    bigint      NOT NULL REFERENCES trials (id),
    check_no    integer     NOT NULL CHECK (check_no BETWEEN 1 AND 30),
    state       text        NOT NULL CHECK (state IN ('pending', 'pass', 'fail', 'na')),
    note        text        NOT NULL DEFAULT '' CHECK (length(note) <= 5000),
    output      text        NOT NULL DEFAULT '' CHECK (length(output) <= 200000),
    measured    text        NOT NULL DEFAULT '' CHECK (length(measured) <= 200),
    reasons     jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(reasons) = 'array'),
    paste_id    bigint      REFERENCES trial_pastes (id),
    recorded_by bigint      REFERENCES users (id),
    recorded_at timestamptz NOT NULL DEFAULT now()
);
-- the latest result per check: DISTINCT ON (check_no) ORDER BY id DESC
CREATE INDEX trial_check_results_latest_idx ON trial_check_results (trial_id, check_no, id DESC);

-- A measured TFLOPS figure and the 85 % rule's verdict on it, with the
-- catalog figures it was compared against at the time (nominal, and the
-- reference measured figure where the catalog had one). ratio is measured ÷
-- the basis, cut (not rounded) to 6 places so that "below 85 %" holds for
-- the stored ratio exactly when it held for the exact one; the newest ratio
-- of a platform × GPU model feeds the TCO engine's performance_ratio.
CREATE TABLE trial_perf (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trial_id          bigint        NOT NULL REFERENCES trials (id),
    platform_id       bigint        NOT NULL REFERENCES platforms (id),
    gpu_model_id      bigint        NOT NULL REFERENCES gpu_models (id),
    precision         text          NOT NULL CHECK (precision IN ('fp32', 'tf32', 'bf16', 'fp8')),
    measured_tflops   numeric(12,3) NOT NULL CHECK (measured_tflops > 0),
    benchmark         text          NOT NULL CHECK (length(btrim(benchmark)) BETWEEN 1 AND 200),
    nominal_tflops    numeric(12,3) NOT NULL CHECK (nominal_tflops > 0),
    sparse            boolean       NOT NULL DEFAULT false,
    reference_tflops  numeric(12,3) CHECK (reference_tflops > 0),
    basis             text          NOT NULL CHECK (basis IN ('reference', 'nominal')),
    basis_tflops      numeric(12,3) NOT NULL CHECK (basis_tflops > 0),
    ratio             numeric(14,6) NOT NULL CHECK (ratio > 0),
    ratio_to_nominal  numeric(14,6) NOT NULL CHECK (ratio_to_nominal > 0),
    threshold_tflops  numeric(16,6) NOT NULL,
    below             boolean       NOT NULL,
    message           jsonb         NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(message) = 'object'),
    note              text          NOT NULL DEFAULT '' CHECK (length(note) <= 2000),
    recorded_by       bigint        REFERENCES users (id),
    recorded_at       timestamptz   NOT NULL DEFAULT now()
);
CREATE INDEX trial_perf_trial_idx ON trial_perf (trial_id, id);
-- the newest measurement per platform × GPU model (comparisons)
CREATE INDEX trial_perf_latest_idx ON trial_perf (platform_id, gpu_model_id, id DESC);

-- +goose StatementBegin
-- Trial evidence is history: rows are added, never changed or removed.
CREATE FUNCTION trial_history_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%: trial evidence is append-only; record a new result instead', TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER trial_pastes_append_only BEFORE UPDATE OR DELETE ON trial_pastes
    FOR EACH ROW EXECUTE FUNCTION trial_history_append_only();
CREATE TRIGGER trial_check_results_append_only BEFORE UPDATE OR DELETE ON trial_check_results
    FOR EACH ROW EXECUTE FUNCTION trial_history_append_only();
CREATE TRIGGER trial_perf_append_only BEFORE UPDATE OR DELETE ON trial_perf
    FOR EACH ROW EXECUTE FUNCTION trial_history_append_only();

-- The vendor's answer to one of the six SLA clauses or the five written
-- confirmations, per platform: what they said, whether it is in writing
-- (the guide's rule: only a written answer counts), and when. An answer
-- missing or not in writing becomes a question to the vendor. Edited in
-- place under optimistic locking; the audit log keeps every version.
CREATE TABLE platform_terms (
    platform_id  bigint      NOT NULL REFERENCES platforms (id),
    kind         text        NOT NULL CHECK (kind IN ('sla', 'confirmation')),
    key          text        NOT NULL CHECK (
                     (kind = 'sla' AND key IN ('availability_definition', 'compensation', 'maintenance_notice',
                         'unilateral_change', 'data_loss', 'termination_refund'))
                     OR (kind = 'confirmation' AND key IN ('hidden_items', 'stopped_billing', 'egress',
                         'sla_terms', 'termination_refund'))),
    answer       text        NOT NULL DEFAULT '' CHECK (length(answer) <= 2000),
    in_writing   boolean     NOT NULL DEFAULT false,
    answered_on  date,
    lock_version integer     NOT NULL DEFAULT 1,
    updated_by   bigint      REFERENCES users (id),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform_id, kind, key),
    -- "in writing" is a property of an answer
    CHECK (NOT in_writing OR btrim(answer) <> '')
);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
