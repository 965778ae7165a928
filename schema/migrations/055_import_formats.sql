-- Imports from other trackers' exports: the format of the file the import
-- came from, and the conversion's report (its summary of what the file
-- holds and the problems: rows skipped or changed, and why), which
-- GET /imports/{id} shows with the import's own counts.
ALTER TABLE imports
    ADD COLUMN format text NOT NULL DEFAULT 'tracker_json'
        CHECK (format IN ('tracker_json', 'jira_csv', 'github_json', 'linear_csv', 'csv')),
    ADD COLUMN report jsonb;
