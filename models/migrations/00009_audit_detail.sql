-- What a fired trigger did beyond its intent and states, in words (a change
-- request's proposed fields, the terms it amended): part of the row's hash
-- when set, so rows written before this migration keep their hashes.
ALTER TABLE audit_events ADD COLUMN detail TEXT NOT NULL DEFAULT '';
