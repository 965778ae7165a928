-- Under a capitalization policy, a project whose framework starts
-- capitalizing inside a month (ASU 2025-06's later of funding and the
-- uncertainty's resolution, IAS 38's criteria) is aggregated from its own
-- entries of that month, each classed by its date. This index reads them
-- as an index-only scan of the project's range, in proportion to its
-- entries, not to the org's month.
CREATE INDEX time_entries_project_report_idx ON time_entries (project_id, date)
    INCLUDE (org_id, user_id, ticket_id, activity_type, duration_minutes)
    WHERE status = 'Approved';
