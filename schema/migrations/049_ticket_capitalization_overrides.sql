-- An Admin's override of a ticket's capitalization: under a policy it beats
-- every rule of the policy, never the framework (an override to capex
-- capitalizes only what the framework does). One per ticket; removing it
-- deletes the row (the ticket's activity trail keeps the history).
CREATE TABLE ticket_capitalization_overrides (
    ticket_id      uuid PRIMARY KEY REFERENCES tickets (id) ON DELETE CASCADE,
    org_id         uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    classification text NOT NULL CHECK (classification IN ('capex', 'opex')),
    reason         text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 2000),
    set_by         uuid REFERENCES users (id),
    set_at         timestamptz NOT NULL
);
CREATE INDEX ticket_capitalization_overrides_org_idx ON ticket_capitalization_overrides (org_id, ticket_id);
