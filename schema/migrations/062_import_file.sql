-- An import of another tracker's export (Jira, Linear, GitHub, CSV) keeps
-- the uploaded file in the object store instead of a converted document
-- here: file names the object (key, size) and what the conversion needs
-- beyond the org (mapping, project key). The worker converts the object
-- again as a stream when it stages the import. NULL for a Tracker
-- document, which is still kept in document.
ALTER TABLE imports ADD COLUMN file jsonb;
