-- Search by assignee or reporter (issue 16 benchmark): `assignee:<email>`
-- and `reporter:<email>` compare with a user id found by a subquery, so
-- the planner cannot tell a busy user from one without tickets and walked
-- the org's tickets in id order filtering them (about a second at 100,000
-- tickets for a user with none). These indexes give the tickets of one
-- person in id order, the list's default order, so a page reads 21 entries.
CREATE INDEX tickets_assignee_order_idx ON tickets (assignee_id, id) WHERE deleted_at IS NULL AND assignee_id IS NOT NULL;
CREATE INDEX tickets_reporter_order_idx ON tickets (reporter_id, id) WHERE deleted_at IS NULL;
