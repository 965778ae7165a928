-- Search by status (issue 16 at 1,000,000 tickets): `status:` compares
-- lower(status), and the planner keeps no statistics of an expression that
-- only partial indexes (tickets_project_status_idx, tickets_org_status_idx)
-- index, so it guessed 0.5% of the tickets for any status. With a common
-- word (`billing status:Done`) it then read every Done ticket through the
-- status index instead of walking the most recently updated ones: 25 s.
-- Statistics on the expression give it the real share of each status.
CREATE STATISTICS tickets_lower_status_stats ON (lower(status)) FROM tickets;
ANALYZE tickets;
