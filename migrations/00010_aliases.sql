-- aliases: the other names people write for a GPU model or platform
-- ("NVIDIA RTX 4090" for the model stored as "NVIDIA GeForce RTX 4090"),
-- kept per row and edited on its form. The CSV import and the quote
-- references resolve them like the names themselves. An alias is unique
-- across the table's names and aliases, case-insensitively (docs/RULES.md
-- §7.6); the store checks that under a lock, since an index cannot compare
-- array elements across rows.

-- +goose Up
ALTER TABLE gpu_models ADD COLUMN aliases text[] NOT NULL DEFAULT '{}';
ALTER TABLE platforms ADD COLUMN aliases text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE platforms DROP COLUMN aliases;
ALTER TABLE gpu_models DROP COLUMN aliases;
