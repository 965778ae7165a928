-- Org-wide ticket search (issue 16): the sorts and the priority filter
-- across an org's projects, chosen from the plans of store/searchdb's
-- TestEveryFilterUsesAnIndex.
CREATE INDEX tickets_org_priority_idx ON tickets (org_id,
    (CASE priority WHEN 'None' THEN 0 WHEN 'Low' THEN 1 WHEN 'Medium' THEN 2 WHEN 'High' THEN 3 ELSE 4 END), id)
    WHERE deleted_at IS NULL;
CREATE INDEX tickets_org_created_idx ON tickets (org_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_org_number_idx ON tickets (org_id, ticket_number, id) WHERE deleted_at IS NULL;
