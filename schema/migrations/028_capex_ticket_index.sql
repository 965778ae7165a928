-- The capitalization report's tag filter answers tags on projects, users
-- and teams from capex_rollup; an entry that matches a tag only through its
-- ticket (or itself) is read one by one. This index reads the month's
-- approved entries of the tagged tickets as an index-only scan, so that
-- part costs in proportion to those entries, not to the month.
CREATE INDEX time_entries_ticket_report_idx ON time_entries (ticket_id, date)
    INCLUDE (id, org_id, project_id, user_id, activity_type, duration_minutes)
    WHERE status = 'Approved';
