package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/trial"
	"gpuquote/internal/user"
)

// Audit actions of trials.
const (
	ActionTrialCreate = "trial.create"
	ActionTrialRecord = "trial.record"
	ActionTrialPaste  = "trial.nvidia_smi"
	ActionTrialPerf   = "trial.performance"
)

// ErrTrialQuote means a trial was asked for a quote that is not the
// current published version of its offer.
var ErrTrialQuote = errors.New("store: trials are opened for published quotes")

const trialColumns = `t.id, t.quote_id, t.platform_id, t.gpu_model_id, t.started_on, t.note, t.verdict,
	coalesce(t.created_by, 0), t.created_at, t.updated_at,
	q.version, q.label, q.state, q.gpu_count, p.name_zh, p.name_en, g.vendor, g.name,
	coalesce(nullif(u.display_name, ''), u.email, '')`

const trialFrom = ` FROM trials t
	JOIN quotes q ON q.id = t.quote_id
	JOIN platforms p ON p.id = t.platform_id
	JOIN gpu_models g ON g.id = t.gpu_model_id
	LEFT JOIN users u ON u.id = t.created_by`

func trialDest(t *trial.Trial) []any {
	return []any{&t.ID, &t.QuoteID, &t.PlatformID, &t.GPUModelID, &t.StartedOn, &t.Note, &t.Verdict,
		&t.CreatedBy, &t.CreatedAt, &t.UpdatedAt,
		&t.QuoteVersion, &t.QuoteLabel, &t.QuoteState, &t.QuoteGPUCount, &t.PlatformNameZH, &t.PlatformNameEN,
		&t.GPUVendor, &t.GPUName, &t.CreatedByName}
}

func trialByID(ctx context.Context, q Querier, id int64) (trial.Trial, error) {
	var t trial.Trial
	if err := q.QueryRow(ctx, `SELECT `+trialColumns+trialFrom+` WHERE t.id = $1`, id).Scan(trialDest(&t)...); err != nil {
		return trial.Trial{}, notFound(err)
	}
	return t, nil
}

// TrialByID returns a trial with its names.
func (s *Store) TrialByID(ctx context.Context, id int64) (trial.Trial, error) {
	return trialByID(ctx, s.pool, id)
}

// CreateTrial opens a trial of a published quote (its platform and GPU
// model are the quote's) and audits it. ErrNotFound for a missing quote,
// ErrTrialQuote for a draft or archived one.
func (s *Store) CreateTrial(ctx context.Context, a user.Actor, n trial.Start) (trial.Trial, error) {
	var out trial.Trial
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var (
			state               string
			platformID, modelID int64
		)
		// FOR SHARE: the quote cannot be archived while the trial is opened.
		err := tx.QueryRow(ctx, `SELECT state, platform_id, gpu_model_id FROM quotes WHERE id = $1 FOR SHARE`, n.QuoteID).
			Scan(&state, &platformID, &modelID)
		if err != nil {
			return notFound(err)
		}
		if state != quote.Published {
			return ErrTrialQuote
		}
		y, m, d := n.StartedOn.Date()
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO trials (quote_id, platform_id, gpu_model_id, started_on, note, created_by)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			n.QuoteID, platformID, modelID, time.Date(y, m, d, 0, 0, 0, 0, time.UTC), strings.TrimSpace(n.Note),
			nullableActorID(a)).Scan(&id); err != nil {
			return fmt.Errorf("create trial: %w", err)
		}
		if out, err = trialByID(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionTrialCreate, Entity: "trial", EntityID: strconv.FormatInt(id, 10), After: out})
	})
	return out, err
}

// TrialFilter narrows the trial list. Zero fields do not filter.
type TrialFilter struct {
	PlatformID int64
	GPUModelID int64
	QuoteID    int64
	// Verdict is one of trial.Verdicts.
	Verdict trial.Verdict
	Offset  int
	Limit   int
}

// Trials lists trials newest start first, with each one's number of
// decided checks and the verdict of its newest measurement that counts
// (trustedPerf, docs/RULES.md §9.6), and the total count matching the
// filter.
func (s *Store) Trials(ctx context.Context, f TrialFilter) ([]trial.Trial, int, error) {
	f.Offset, f.Limit = pageWindow(f.Offset, f.Limit)
	verdict := ""
	if f.Verdict.Valid() {
		verdict = string(f.Verdict)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+trialColumns+`,
			t.decided,
			(SELECT pf.below FROM trial_perf pf LEFT JOIN users u ON u.id = pf.recorded_by
				WHERE pf.trial_id = t.id AND `+trustedPerf+` ORDER BY pf.id DESC LIMIT 1),
			count(*) OVER ()`+trialFrom+`
		WHERE ($1::bigint = 0 OR t.platform_id = $1) AND ($2::bigint = 0 OR t.gpu_model_id = $2)
			AND ($3::bigint = 0 OR t.quote_id = $3) AND ($4 = '' OR t.verdict = $4)
		ORDER BY t.started_on DESC, t.id DESC
		OFFSET $5 LIMIT $6`, f.PlatformID, f.GPUModelID, f.QuoteID, verdict, f.Offset, f.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("trials: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (trial.Trial, error) {
		var t trial.Trial
		err := row.Scan(append(trialDest(&t), &t.Done, &t.PerfBelow, &total)...)
		return t, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("trials: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		// Past the last page: report the true total anyway.
		if err := s.pool.QueryRow(ctx, `
			SELECT count(*) FROM trials t
			WHERE ($1::bigint = 0 OR t.platform_id = $1) AND ($2::bigint = 0 OR t.gpu_model_id = $2)
				AND ($3::bigint = 0 OR t.quote_id = $3) AND ($4 = '' OR t.verdict = $4)`,
			f.PlatformID, f.GPUModelID, f.QuoteID, verdict).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("trials: %w", err)
		}
	}
	return out, total, nil
}

// TrialKey is a trial's place in the trial list's order (started_on DESC,
// id DESC).
type TrialKey struct {
	StartedOn time.Time
	ID        int64
}

// TrialsAfter lists the trials f keeps (its Offset unused) in the trial
// list's order, each with its number of decided checks, from the one after
// after (the zero key: from the first), at most limit: the data API's
// keyset pages (docs/RULES.md §19.5).
func (s *Store) TrialsAfter(ctx context.Context, f TrialFilter, after TrialKey, limit int) ([]trial.Trial, error) {
	verdict := ""
	if f.Verdict.Valid() {
		verdict = string(f.Verdict)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+trialColumns+`, t.decided`+trialFrom+`
		WHERE ($1::bigint = 0 OR t.platform_id = $1) AND ($2::bigint = 0 OR t.gpu_model_id = $2)
			AND ($3::bigint = 0 OR t.quote_id = $3) AND ($4 = '' OR t.verdict = $4)
			AND ($5::bigint = 0 OR (t.started_on, t.id) < ($6::date, $5::bigint))
		ORDER BY t.started_on DESC, t.id DESC
		LIMIT $7`, f.PlatformID, f.GPUModelID, f.QuoteID, verdict, after.ID, after.StartedOn, limit)
	if err != nil {
		return nil, fmt.Errorf("trials after: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (trial.Trial, error) {
		var t trial.Trial
		err := row.Scan(append(trialDest(&t), &t.Done)...)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("trials after: %w", err)
	}
	return out, nil
}

// decodeJSON reads a jsonb value keeping numbers exact (json.Number, which
// prints as the literal it was), never float64.
func decodeJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// trialRecordAudit is how a recorded result appears in the audit log: the
// pasted output by its length only.
type trialRecordAudit struct {
	Check       int            `json:"check"`
	State       trial.State    `json:"state"`
	Note        string         `json:"note,omitempty"`
	Measured    string         `json:"measured,omitempty"`
	OutputChars int            `json:"output_chars,omitempty"`
	Reasons     []trial.Reason `json:"reasons,omitempty"`
}

// RecordTrialResults appends check results to trial trialID, with the
// pasted output they were read from when paste is not nil, recomputes the
// trial's verdict from the latest result of every check and audits — all
// in one transaction. The trial row is locked first, so two recordings at
// once each see the other's results in the verdict. ErrNotFound for a
// missing trial.
func (s *Store) RecordTrialResults(ctx context.Context, a user.Actor, trialID int64, paste *trial.Paste, recs []trial.Record) (trial.Trial, error) {
	var out trial.Trial
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var before trial.Verdict
		if err := tx.QueryRow(ctx, `SELECT verdict FROM trials WHERE id = $1 FOR UPDATE`, trialID).Scan(&before); err != nil {
			return notFound(err)
		}
		if err := mayWriteTrial(ctx, tx, a, trialID); err != nil {
			return err
		}
		var pasteID *int64
		action := ActionTrialRecord
		var pasteAudit any
		if paste != nil {
			// The trial row is locked: two pastes at once are counted one
			// after the other (docs/RULES.md §16.3).
			use, err := trialEvidenceUse(ctx, tx, trialID)
			if err != nil {
				return err
			}
			if err := use.Admit(int64(len(paste.Output))); err != nil {
				return err
			}
			checks, err := json.Marshal(nonNilChecks(paste.Checks))
			if err != nil {
				return fmt.Errorf("trial paste checks: %w", err)
			}
			var id int64
			if err := tx.QueryRow(ctx, `
				INSERT INTO trial_pastes (trial_id, output, format, samples, checks, recorded_by)
				VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
				trialID, paste.Output, paste.Format, paste.Samples, checks, nullableActorID(a)).Scan(&id); err != nil {
				return fmt.Errorf("trial paste: %w", err)
			}
			pasteID, action = &id, ActionTrialPaste
			pasteAudit = map[string]any{"paste_id": id, "format": paste.Format, "samples": paste.Samples,
				"output_chars": len([]rune(paste.Output)), "checks": paste.Checks}
		}
		logged := make([]trialRecordAudit, 0, len(recs))
		for _, r := range recs {
			reasons, err := json.Marshal(nonNilReasons(r.Reasons))
			if err != nil {
				return fmt.Errorf("trial result reasons: %w", err)
			}
			if _, err := tx.Exec(ctx, `
				INSERT INTO trial_check_results (trial_id, check_no, state, note, output, measured, reasons, paste_id, recorded_by)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
				trialID, r.Check, r.State, strings.TrimSpace(r.Note), r.Output, strings.TrimSpace(r.Measured), reasons,
				pasteID, nullableActorID(a)); err != nil {
				return fmt.Errorf("trial result %d: %w", r.Check, err)
			}
			logged = append(logged, trialRecordAudit{Check: r.Check, State: r.State, Note: strings.TrimSpace(r.Note),
				Measured: strings.TrimSpace(r.Measured), OutputChars: len([]rune(r.Output)), Reasons: r.Reasons})
		}
		results, err := trialCheckStates(ctx, tx, trialID)
		if err != nil {
			return err
		}
		latest, _ := trial.Latest(results)
		states := trial.StatesOf(latest)
		verdict := trial.VerdictOf(states)
		if _, err := tx.Exec(ctx, `UPDATE trials SET verdict = $2, decided = $3, updated_at = now() WHERE id = $1`,
			trialID, verdict, trial.Decided(states)); err != nil {
			return fmt.Errorf("trial verdict: %w", err)
		}
		if out, err = trialByID(ctx, tx, trialID); err != nil {
			return err
		}
		after := map[string]any{"verdict": verdict, "results": logged}
		if pasteAudit != nil {
			after["paste"] = pasteAudit
		}
		return audit(ctx, tx, a, AuditEntry{Action: action, Entity: "trial", EntityID: strconv.FormatInt(trialID, 10),
			Before: map[string]any{"verdict": before}, After: after})
	})
	return out, err
}

func nonNilReasons(r []trial.Reason) []trial.Reason {
	if r == nil {
		return []trial.Reason{}
	}
	return r
}

func nonNilChecks(c []trial.PasteCheck) []trial.PasteCheck {
	if c == nil {
		return []trial.PasteCheck{}
	}
	return c
}

// mayWriteTrial refuses (ErrNotAllowed) a write to trial trialID by an
// actor who is neither its author nor an editor or admin, reading the
// actor's role as it is now (docs/RULES.md §16.3). The system actor
// (command line, seed) may write.
func mayWriteTrial(ctx context.Context, q Querier, a user.Actor, trialID int64) error {
	if a.UserID == 0 {
		return nil
	}
	var (
		createdBy int64
		role      string
	)
	if err := q.QueryRow(ctx, `
		SELECT coalesce(t.created_by, 0), coalesce((SELECT u.role FROM users u WHERE u.id = $2), '')
		FROM trials t WHERE t.id = $1`, trialID, a.UserID).Scan(&createdBy, &role); err != nil {
		return notFound(err)
	}
	if !trial.MayWrite(trial.Trial{ID: trialID, CreatedBy: createdBy}, a.UserID, role) {
		return ErrNotAllowed
	}
	return nil
}

func trialEvidenceUse(ctx context.Context, q Querier, trialID int64) (trial.Use, error) {
	var u trial.Use
	if err := q.QueryRow(ctx, `SELECT count(*), coalesce(sum(octet_length(output)), 0) FROM trial_pastes WHERE trial_id = $1`,
		trialID).Scan(&u.Pastes, &u.Bytes); err != nil {
		return trial.Use{}, fmt.Errorf("trial evidence use: %w", err)
	}
	return u, nil
}

// TrialEvidenceUse is how much of its evidence budget trial trialID has
// used: pastes and their bytes (docs/RULES.md §16.3).
func (s *Store) TrialEvidenceUse(ctx context.Context, trialID int64) (trial.Use, error) {
	return trialEvidenceUse(ctx, s.pool, trialID)
}

// trialCheckStates returns every recording of a trial's checks, oldest
// first, with only what the verdict reads (check and state).
func trialCheckStates(ctx context.Context, q Querier, trialID int64) ([]trial.Result, error) {
	rows, err := q.Query(ctx, `SELECT id, check_no, state FROM trial_check_results WHERE trial_id = $1 ORDER BY id`, trialID)
	if err != nil {
		return nil, fmt.Errorf("trial check states: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (trial.Result, error) {
		r := trial.Result{TrialID: trialID}
		err := row.Scan(&r.ID, &r.Check, &r.State)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("trial check states: %w", err)
	}
	return out, nil
}

// TrialResults returns every recording of a trial's checks, oldest first
// (the history; the last one of each check is its state). Output holds at
// most trial.PreviewChars+1 characters of each output (so a reader can
// tell it was cut) and OutputChars the whole length: the page embeds a
// bounded start, TrialResultOutput reads the rest (docs/RULES.md §16.3).
func (s *Store) TrialResults(ctx context.Context, trialID int64) ([]trial.Result, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT r.id, r.trial_id, r.check_no, r.state, r.note, left(r.output, $2), char_length(r.output), r.measured, r.reasons,
			coalesce(r.paste_id, 0), coalesce(r.recorded_by, 0), coalesce(nullif(u.display_name, ''), u.email, ''), r.recorded_at
		FROM trial_check_results r LEFT JOIN users u ON u.id = r.recorded_by
		WHERE r.trial_id = $1
		ORDER BY r.id`, trialID, trial.PreviewChars+1)
	if err != nil {
		return nil, fmt.Errorf("trial results: %w", err)
	}
	defer rows.Close()
	var out []trial.Result
	for rows.Next() {
		var (
			r       trial.Result
			reasons []byte
		)
		if err := rows.Scan(&r.ID, &r.TrialID, &r.Check, &r.State, &r.Note, &r.Output, &r.OutputChars, &r.Measured, &reasons,
			&r.PasteID, &r.RecordedBy, &r.RecordedByName, &r.RecordedAt); err != nil {
			return nil, fmt.Errorf("trial results: %w", err)
		}
		if err := decodeJSON(reasons, &r.Reasons); err != nil {
			return nil, fmt.Errorf("trial result %d reasons: %w", r.ID, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TrialPastes returns the output pasted into a trial, newest first, with
// what was read from it. Only the newest trial.OpenPastes carry text, at
// most trial.PreviewChars+1 characters of it (so a reader can tell it was
// cut); Chars and Bytes are every paste's whole length. TrialPaste reads
// one whole (docs/RULES.md §16.3).
func (s *Store) TrialPastes(ctx context.Context, trialID int64) ([]trial.Paste, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT pa.id, pa.trial_id,
			CASE WHEN row_number() OVER (ORDER BY pa.id DESC) <= $2 THEN left(pa.output, $3) ELSE '' END,
			char_length(pa.output), octet_length(pa.output), pa.format, pa.samples, pa.checks,
			coalesce(pa.recorded_by, 0), coalesce(nullif(u.display_name, ''), u.email, ''), pa.recorded_at
		FROM trial_pastes pa LEFT JOIN users u ON u.id = pa.recorded_by
		WHERE pa.trial_id = $1
		ORDER BY pa.id DESC`, trialID, trial.OpenPastes, trial.PreviewChars+1)
	if err != nil {
		return nil, fmt.Errorf("trial pastes: %w", err)
	}
	defer rows.Close()
	var out []trial.Paste
	for rows.Next() {
		var (
			p      trial.Paste
			checks []byte
		)
		if err := rows.Scan(&p.ID, &p.TrialID, &p.Output, &p.Chars, &p.Bytes, &p.Format, &p.Samples, &checks,
			&p.RecordedBy, &p.RecordedByName, &p.RecordedAt); err != nil {
			return nil, fmt.Errorf("trial pastes: %w", err)
		}
		if err := decodeJSON(checks, &p.Checks); err != nil {
			return nil, fmt.Errorf("trial paste %d checks: %w", p.ID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// TrialPasteOutput returns the whole output of paste pasteID of trial
// trialID. ErrNotFound when the trial has no such paste.
func (s *Store) TrialPasteOutput(ctx context.Context, trialID, pasteID int64) (string, error) {
	var out string
	err := s.pool.QueryRow(ctx, `SELECT output FROM trial_pastes WHERE trial_id = $1 AND id = $2`, trialID, pasteID).Scan(&out)
	return out, notFound(err)
}

// TrialResultOutput returns the whole command output of recording
// resultID of trial trialID. ErrNotFound when the trial has no such
// recording.
func (s *Store) TrialResultOutput(ctx context.Context, trialID, resultID int64) (string, error) {
	var out string
	err := s.pool.QueryRow(ctx, `SELECT output FROM trial_check_results WHERE trial_id = $1 AND id = $2`, trialID, resultID).Scan(&out)
	return out, notFound(err)
}

var trialPerfColumns = `pf.id, pf.trial_id, pf.platform_id, pf.gpu_model_id, pf.precision, pf.measured_tflops, pf.benchmark,
	pf.nominal_tflops, pf.sparse, pf.reference_tflops, pf.basis, pf.basis_tflops, pf.ratio, pf.ratio_to_nominal,
	pf.threshold_tflops, pf.below, pf.message, pf.note,
	coalesce(pf.recorded_by, 0), coalesce(nullif(u.display_name, ''), u.email, ''), pf.recorded_at, ` + trustedPerf

// trialPerfFrom joins a measurement to its trial and its recorder, as
// trustedPerf reads them.
const trialPerfFrom = ` FROM trial_perf pf JOIN trials t ON t.id = pf.trial_id LEFT JOIN users u ON u.id = pf.recorded_by`

// trustedPerf says, over trialPerfFrom, whether a measurement may feed
// comparisons (docs/RULES.md §16.3): recorded by the trial's author, by a
// user whose role is now one of trial.WriterRoles, or by the system.
// Measurements anyone else recorded — possible before trials had owners —
// stay on the trial's page but flag nothing.
var trustedPerf = `(pf.recorded_by IS NULL OR pf.recorded_by = t.created_by OR coalesce(u.role IN ('` +
	strings.Join(trial.WriterRoles, "', '") + `'), false))`

func scanTrialPerf(row pgx.Row) (trial.Perf, error) {
	var (
		p   trial.Perf
		msg []byte
	)
	if err := row.Scan(&p.ID, &p.TrialID, &p.PlatformID, &p.GPUModelID, &p.Precision, &p.MeasuredTFLOPS, &p.Benchmark,
		&p.NominalTFLOPS, &p.Sparse, &p.ReferenceTFLOPS, &p.Basis, &p.BasisTFLOPS, &p.Ratio, &p.RatioToNominal,
		&p.ThresholdTFLOPS, &p.Below, &msg, &p.Note, &p.RecordedBy, &p.RecordedByName, &p.RecordedAt, &p.Trusted); err != nil {
		return trial.Perf{}, err
	}
	if err := decodeJSON(msg, &p.Message); err != nil {
		return trial.Perf{}, fmt.Errorf("trial perf %d message: %w", p.ID, err)
	}
	return p, nil
}

// RecordTrialPerf appends a performance measurement to trial p.TrialID (the
// platform and GPU model are the trial's) and audits it. The ratios are cut
// to trial.RatioPlaces places (money.CutRatio), not left to the column's
// rounding, so a ratio below 0.85 stays below. ErrNotFound for a missing
// trial.
func (s *Store) RecordTrialPerf(ctx context.Context, a user.Actor, p trial.Perf) (trial.Perf, error) {
	var out trial.Perf
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT platform_id, gpu_model_id FROM trials WHERE id = $1 FOR SHARE`, p.TrialID).
			Scan(&p.PlatformID, &p.GPUModelID); err != nil {
			return notFound(err)
		}
		if err := mayWriteTrial(ctx, tx, a, p.TrialID); err != nil {
			return err
		}
		msg, err := json.Marshal(p.Message)
		if err != nil {
			return fmt.Errorf("trial perf message: %w", err)
		}
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO trial_perf (trial_id, platform_id, gpu_model_id, precision, measured_tflops, benchmark,
				nominal_tflops, sparse, reference_tflops, basis, basis_tflops, ratio, ratio_to_nominal,
				threshold_tflops, below, message, note, recorded_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
			RETURNING id`,
			p.TrialID, p.PlatformID, p.GPUModelID, p.Precision, p.MeasuredTFLOPS, strings.TrimSpace(p.Benchmark),
			p.NominalTFLOPS, p.Sparse, p.ReferenceTFLOPS, p.Basis, p.BasisTFLOPS, money.CutRatio(p.Ratio, trial.RatioPlaces), money.CutRatio(p.RatioToNominal, trial.RatioPlaces),
			p.ThresholdTFLOPS, p.Below, msg, strings.TrimSpace(p.Note), nullableActorID(a)).Scan(&id); err != nil {
			return fmt.Errorf("record trial perf: %w", err)
		}
		if out, err = scanTrialPerf(tx.QueryRow(ctx, `SELECT `+trialPerfColumns+trialPerfFrom+` WHERE pf.id = $1`, id)); err != nil {
			return fmt.Errorf("record trial perf: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE trials SET updated_at = now() WHERE id = $1`, p.TrialID); err != nil {
			return fmt.Errorf("record trial perf: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionTrialPerf, Entity: "trial", EntityID: strconv.FormatInt(p.TrialID, 10), After: out})
	})
	return out, err
}

// TrialPerfs returns a trial's performance measurements, newest first.
func (s *Store) TrialPerfs(ctx context.Context, trialID int64) ([]trial.Perf, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+trialPerfColumns+trialPerfFrom+`
		WHERE pf.trial_id = $1 ORDER BY pf.id DESC`, trialID)
	if err != nil {
		return nil, fmt.Errorf("trial perfs: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (trial.Perf, error) { return scanTrialPerf(row) })
	if err != nil {
		return nil, fmt.Errorf("trial perfs: %w", err)
	}
	return out, nil
}

// PerformanceRatios returns, per platform × GPU model, the measured ratio
// (measured ÷ the basis the 85 % rule compared against) of the newest
// trusted performance measurement of any trial of that pair: what
// comparisons use as the TCO engine's performance_ratio. A measurement
// recorded by someone other than the trial's author, an editor or an admin
// is passed over (trustedPerf, docs/RULES.md §16.3).
func (s *Store) PerformanceRatios(ctx context.Context) (map[market.PlatformGPU]decimal.Decimal, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (pf.platform_id, pf.gpu_model_id) pf.platform_id, pf.gpu_model_id, pf.ratio`+trialPerfFrom+`
		WHERE `+trustedPerf+`
		ORDER BY pf.platform_id, pf.gpu_model_id, pf.id DESC`)
	if err != nil {
		return nil, fmt.Errorf("performance ratios: %w", err)
	}
	defer rows.Close()
	out := map[market.PlatformGPU]decimal.Decimal{}
	for rows.Next() {
		var (
			k market.PlatformGPU
			r decimal.Decimal
		)
		if err := rows.Scan(&k.PlatformID, &k.GPUModelID, &r); err != nil {
			return nil, fmt.Errorf("performance ratios: %w", err)
		}
		out[k] = r
	}
	return out, rows.Err()
}
