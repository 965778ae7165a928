-- Four-eyes period close: an org may require that a close one Admin asks
-- for is approved by a second Admin or Owner before it takes effect.
--
-- A close is pending_approval from the request (its snapshot taken and
-- hashed, the month's writes refused) until it is approved (closed) or
-- rejected. A rejected close keeps its row, like a reopened one, with
-- reopened_by/at/reason recording who rejected it, when and why; that
-- frees the month (the in-force index only counts reopened_at IS NULL).
ALTER TABLE organizations ADD COLUMN require_second_close_approver boolean NOT NULL DEFAULT false;

ALTER TABLE period_closes
    ADD COLUMN status text NOT NULL DEFAULT 'closed' CHECK (status IN ('pending_approval', 'closed', 'rejected')),
    ADD COLUMN approved_by uuid REFERENCES users (id),
    ADD COLUMN approved_at timestamptz,
    ADD CHECK (status <> 'pending_approval' OR reopened_at IS NULL),
    ADD CHECK (status <> 'rejected' OR reopened_at IS NOT NULL),
    ADD CHECK ((approved_at IS NULL) = (approved_by IS NULL));
