-- Projects, tickets, sprints, comments, labels and entity tags.
-- Roots of cascade deletes (projects, sprints, tickets, labels) carry
-- deleted_at: set in the request's transaction, purged later by a workflow.
CREATE TABLE projects (
    id                  uuid PRIMARY KEY,
    org_id              uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    team_id             uuid REFERENCES teams (id) ON DELETE SET NULL,
    workflow_id         uuid REFERENCES workflows (id),
    key                 text NOT NULL,
    name                text NOT NULL,
    description         text,
    ticket_counter      integer NOT NULL DEFAULT 0,
    capitalization_type text,
    development_phase   text,
    cost_center_id      text,
    amortization_months integer,
    budget_cents        bigint,
    budget_period       text CHECK (budget_period IN ('Monthly', 'Quarterly', 'Yearly', 'Fixed')),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    deleted_at          timestamptz
);
CREATE UNIQUE INDEX projects_org_key_key ON projects (org_id, upper(key)) WHERE deleted_at IS NULL;
CREATE INDEX projects_org_idx ON projects (org_id, id) WHERE deleted_at IS NULL;
CREATE INDEX projects_workflow_idx ON projects (workflow_id) WHERE workflow_id IS NOT NULL;

CREATE TABLE project_members (
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    project_id uuid NOT NULL REFERENCES projects (id),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user_idx ON project_members (user_id);

CREATE TABLE sprints (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    project_id uuid NOT NULL REFERENCES projects (id),
    name       text NOT NULL,
    goal       text,
    start_date date NOT NULL,
    end_date   date NOT NULL,
    status     text NOT NULL DEFAULT 'Planned' CHECK (status IN ('Planned', 'Active', 'Completed')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);
CREATE INDEX sprints_project_idx ON sprints (project_id, id) WHERE deleted_at IS NULL;

CREATE TABLE tickets (
    id            uuid PRIMARY KEY,
    org_id        uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    project_id    uuid NOT NULL REFERENCES projects (id),
    ticket_number integer NOT NULL,
    title         text NOT NULL,
    description   text,
    status        text NOT NULL,
    priority      text NOT NULL DEFAULT 'None' CHECK (priority IN ('None', 'Low', 'Medium', 'High', 'Critical')),
    assignee_id   uuid REFERENCES users (id),
    reporter_id   uuid NOT NULL REFERENCES users (id),
    sprint_id     uuid REFERENCES sprints (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz,
    CONSTRAINT tickets_project_number_key UNIQUE (project_id, ticket_number)
);
CREATE INDEX tickets_project_idx ON tickets (project_id, id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_sprint_idx ON tickets (sprint_id) WHERE sprint_id IS NOT NULL;
CREATE INDEX tickets_assignee_idx ON tickets (assignee_id) WHERE assignee_id IS NOT NULL;

CREATE TABLE comments (
    id                uuid PRIMARY KEY,
    org_id            uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    ticket_id         uuid NOT NULL REFERENCES tickets (id),
    author_id         uuid NOT NULL REFERENCES users (id),
    body              text NOT NULL,
    parent_comment_id uuid REFERENCES comments (id),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_ticket_idx ON comments (ticket_id, id);
CREATE INDEX comments_parent_idx ON comments (parent_comment_id) WHERE parent_comment_id IS NOT NULL;

CREATE TABLE labels (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name       text NOT NULL,
    color      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
);
CREATE UNIQUE INDEX labels_org_name_key ON labels (org_id, lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX labels_org_idx ON labels (org_id, id) WHERE deleted_at IS NULL;

CREATE TABLE ticket_labels (
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    ticket_id  uuid NOT NULL REFERENCES tickets (id),
    label_id   uuid NOT NULL REFERENCES labels (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (ticket_id, label_id)
);
CREATE INDEX ticket_labels_label_idx ON ticket_labels (label_id);

CREATE TABLE entity_tags (
    id          uuid PRIMARY KEY,
    org_id      uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    entity_type text NOT NULL CHECK (entity_type IN ('project', 'ticket', 'user', 'team', 'time_entry')),
    entity_id   uuid NOT NULL,
    key         text NOT NULL,
    value       text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT entity_tags_entity_key_key UNIQUE (org_id, entity_type, entity_id, key)
);
CREATE INDEX entity_tags_search_idx ON entity_tags (org_id, key, value, id);
