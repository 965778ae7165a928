-- Ticket links (issue 16): a blocks b, a duplicates b, a relates_to b, across
-- projects of one org. blocked_by and duplicated_by are the same rows read
-- from the other end. A ticket's removal removes its links.
CREATE TABLE ticket_links (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    source_id  uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    target_id  uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    type       text NOT NULL CHECK (type IN ('blocks', 'duplicates', 'relates_to')),
    created_by uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ticket_links_not_self CHECK (source_id <> target_id),
    CONSTRAINT ticket_links_pair_key UNIQUE (source_id, target_id, type)
);
CREATE INDEX ticket_links_target_idx ON ticket_links (target_id, type);
CREATE INDEX ticket_links_org_idx ON ticket_links (org_id, type, target_id);
