-- Comment edits used to record the old and new body in the audit row, so an
-- edited or deleted comment's text stayed readable in the ticket's activity
-- feed. Rewrite those entries to the marker new edits record.
UPDATE audit_log
SET changes = (
    SELECT jsonb_agg(CASE WHEN e->>'field' = 'comment_body'
                          THEN jsonb_build_object('field', 'comment_body', 'old', NULL, 'new', 'edited')
                          ELSE e END ORDER BY ord)
    FROM jsonb_array_elements(changes) WITH ORDINALITY AS x(e, ord))
WHERE action = 'comment_updated' AND changes @> '[{"field": "comment_body"}]';
