-- An import names people by email. An unknown email becomes a placeholder
-- account: no password, cannot log in, a member of nothing. Registering
-- with that email claims it (same id, so imported authorship stays).
ALTER TABLE users ADD COLUMN placeholder boolean NOT NULL DEFAULT false;
