-- Durable operations (issue 15): an import can be cancelled by an Admin
-- (POST /imports/{id}/cancel). A cancelled import stops after the batch
-- under way; what it imported so far stays, consistent, and importing the
-- same document again completes it without duplicates. cancelled_by is
-- the Admin who cancelled it.
ALTER TABLE imports DROP CONSTRAINT imports_status_check;
ALTER TABLE imports ADD CONSTRAINT imports_status_check
    CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled'));
ALTER TABLE imports ADD COLUMN cancelled_by uuid REFERENCES users (id) ON DELETE SET NULL;
