-- The capitalization rollup at the grain of tickets: approved minutes and
-- amounts per (org, month, ticket, project, user, activity type), priced
-- and kept exactly as capex_rollup (migration 014) is, by triggers of its
-- own in the writing transaction. Under a capitalization policy the
-- tickets a rule or an override makes OpEx are taken out of their
-- projects' CapEx: their sums are read here by ticket, in proportion to
-- those tickets' (user, activity type) groups, not to their entries.
CREATE TABLE capex_ticket_rollup (
    org_id           uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    month            date NOT NULL,   -- first day of the month
    ticket_id        uuid NOT NULL,
    project_id       uuid NOT NULL,
    user_id          uuid NOT NULL,
    activity_type    text NOT NULL,
    minutes          bigint NOT NULL,
    amount_cents     bigint NOT NULL,
    rate_minutes     bigint NOT NULL, -- sum of minutes x rate (the CSV's mean rate)
    entries          bigint NOT NULL,
    unpriced_entries bigint NOT NULL,
    PRIMARY KEY (org_id, month, ticket_id, project_id, user_id, activity_type)
);
CREATE INDEX capex_ticket_rollup_user_idx ON capex_ticket_rollup (org_id, user_id, month);

CREATE FUNCTION capex_ticket_rollup_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO capex_ticket_rollup AS c (org_id, month, ticket_id, project_id, user_id, activity_type, minutes, amount_cents,
                                   rate_minutes, entries, unpriced_entries)
        SELECT e.org_id, date_trunc('month', e.date)::date AS month, e.ticket_id, e.project_id, e.user_id, e.activity_type,
               sum(e.duration_minutes)::bigint AS minutes,
               sum((e.duration_minutes::bigint * COALESCE(r.rate, 0) * 2 + 60) / 120)::bigint AS amount_cents,
               sum(e.duration_minutes::bigint * COALESCE(r.rate, 0))::bigint AS rate_minutes, count(*) AS entries,
               count(*) FILTER (WHERE r.rate IS NULL) AS unpriced_entries
        FROM new_rows e
        LEFT JOIN LATERAL (SELECT lr.loaded_rate_cents AS rate FROM labor_rates lr
                           WHERE lr.org_id = e.org_id AND lr.user_id = e.user_id AND lr.effective_date <= e.date
                           ORDER BY lr.effective_date DESC LIMIT 1) r ON true
        WHERE e.status = 'Approved'
        GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (org_id, month, ticket_id, project_id, user_id, activity_type) DO UPDATE SET
        minutes = c.minutes + excluded.minutes, amount_cents = c.amount_cents + excluded.amount_cents,
        rate_minutes = c.rate_minutes + excluded.rate_minutes, entries = c.entries + excluded.entries,
        unpriced_entries = c.unpriced_entries + excluded.unpriced_entries;
    RETURN NULL;
END $$;

CREATE FUNCTION capex_ticket_rollup_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE capex_ticket_rollup c SET minutes = c.minutes - d.minutes, amount_cents = c.amount_cents - d.amount_cents,
        rate_minutes = c.rate_minutes - d.rate_minutes, entries = c.entries - d.entries,
        unpriced_entries = c.unpriced_entries - d.unpriced_entries
    FROM (SELECT e.org_id, date_trunc('month', e.date)::date AS month, e.ticket_id, e.project_id, e.user_id, e.activity_type,
               sum(e.duration_minutes)::bigint AS minutes,
               sum((e.duration_minutes::bigint * COALESCE(r.rate, 0) * 2 + 60) / 120)::bigint AS amount_cents,
               sum(e.duration_minutes::bigint * COALESCE(r.rate, 0))::bigint AS rate_minutes, count(*) AS entries,
               count(*) FILTER (WHERE r.rate IS NULL) AS unpriced_entries
        FROM old_rows e
        LEFT JOIN LATERAL (SELECT lr.loaded_rate_cents AS rate FROM labor_rates lr
                           WHERE lr.org_id = e.org_id AND lr.user_id = e.user_id AND lr.effective_date <= e.date
                           ORDER BY lr.effective_date DESC LIMIT 1) r ON true
        WHERE e.status = 'Approved'
        GROUP BY 1, 2, 3, 4, 5, 6) d
    WHERE c.org_id = d.org_id AND c.month = d.month AND c.ticket_id = d.ticket_id AND c.project_id = d.project_id AND c.user_id = d.user_id
      AND c.activity_type = d.activity_type;
    DELETE FROM capex_ticket_rollup c USING (SELECT DISTINCT org_id, user_id FROM old_rows WHERE status = 'Approved') d
        WHERE c.org_id = d.org_id AND c.user_id = d.user_id AND c.entries = 0;
    RETURN NULL;
END $$;

-- An update subtracts the old approved rows and adds the new ones; edits of
-- unapproved entries touch nothing.
CREATE FUNCTION capex_ticket_rollup_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM old_rows WHERE status = 'Approved')
       AND NOT EXISTS (SELECT 1 FROM new_rows WHERE status = 'Approved') THEN
        RETURN NULL;
    END IF;
    UPDATE capex_ticket_rollup c SET minutes = c.minutes - d.minutes, amount_cents = c.amount_cents - d.amount_cents,
        rate_minutes = c.rate_minutes - d.rate_minutes, entries = c.entries - d.entries,
        unpriced_entries = c.unpriced_entries - d.unpriced_entries
    FROM (SELECT e.org_id, date_trunc('month', e.date)::date AS month, e.ticket_id, e.project_id, e.user_id, e.activity_type,
               sum(e.duration_minutes)::bigint AS minutes,
               sum((e.duration_minutes::bigint * COALESCE(r.rate, 0) * 2 + 60) / 120)::bigint AS amount_cents,
               sum(e.duration_minutes::bigint * COALESCE(r.rate, 0))::bigint AS rate_minutes, count(*) AS entries,
               count(*) FILTER (WHERE r.rate IS NULL) AS unpriced_entries
        FROM old_rows e
        LEFT JOIN LATERAL (SELECT lr.loaded_rate_cents AS rate FROM labor_rates lr
                           WHERE lr.org_id = e.org_id AND lr.user_id = e.user_id AND lr.effective_date <= e.date
                           ORDER BY lr.effective_date DESC LIMIT 1) r ON true
        WHERE e.status = 'Approved'
        GROUP BY 1, 2, 3, 4, 5, 6) d
    WHERE c.org_id = d.org_id AND c.month = d.month AND c.ticket_id = d.ticket_id AND c.project_id = d.project_id AND c.user_id = d.user_id
      AND c.activity_type = d.activity_type;
    DELETE FROM capex_ticket_rollup c USING (SELECT DISTINCT org_id, user_id FROM old_rows WHERE status = 'Approved') d
        WHERE c.org_id = d.org_id AND c.user_id = d.user_id AND c.entries = 0;
    INSERT INTO capex_ticket_rollup AS c (org_id, month, ticket_id, project_id, user_id, activity_type, minutes, amount_cents,
                                   rate_minutes, entries, unpriced_entries)
        SELECT e.org_id, date_trunc('month', e.date)::date AS month, e.ticket_id, e.project_id, e.user_id, e.activity_type,
               sum(e.duration_minutes)::bigint AS minutes,
               sum((e.duration_minutes::bigint * COALESCE(r.rate, 0) * 2 + 60) / 120)::bigint AS amount_cents,
               sum(e.duration_minutes::bigint * COALESCE(r.rate, 0))::bigint AS rate_minutes, count(*) AS entries,
               count(*) FILTER (WHERE r.rate IS NULL) AS unpriced_entries
        FROM new_rows e
        LEFT JOIN LATERAL (SELECT lr.loaded_rate_cents AS rate FROM labor_rates lr
                           WHERE lr.org_id = e.org_id AND lr.user_id = e.user_id AND lr.effective_date <= e.date
                           ORDER BY lr.effective_date DESC LIMIT 1) r ON true
        WHERE e.status = 'Approved'
        GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (org_id, month, ticket_id, project_id, user_id, activity_type) DO UPDATE SET
        minutes = c.minutes + excluded.minutes, amount_cents = c.amount_cents + excluded.amount_cents,
        rate_minutes = c.rate_minutes + excluded.rate_minutes, entries = c.entries + excluded.entries,
        unpriced_entries = c.unpriced_entries + excluded.unpriced_entries;
    RETURN NULL;
END $$;

CREATE TRIGGER capex_ticket_rollup_ins AFTER INSERT ON time_entries REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION capex_ticket_rollup_ins();
CREATE TRIGGER capex_ticket_rollup_upd AFTER UPDATE ON time_entries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION capex_ticket_rollup_upd();
CREATE TRIGGER capex_ticket_rollup_del AFTER DELETE ON time_entries REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION capex_ticket_rollup_del();

-- capex_ticket_rollup_reprice recomputes one user's rollup rows in one org from the
-- month of from_date on (a rate change moves every later price).
CREATE FUNCTION capex_ticket_rollup_reprice(p_org uuid, p_user uuid, from_date date) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM capex_ticket_rollup WHERE org_id = p_org AND user_id = p_user AND month >= date_trunc('month', from_date)::date;
    INSERT INTO capex_ticket_rollup (org_id, month, ticket_id, project_id, user_id, activity_type, minutes, amount_cents,
                              rate_minutes, entries, unpriced_entries)
        SELECT e.org_id, date_trunc('month', e.date)::date AS month, e.ticket_id, e.project_id, e.user_id, e.activity_type,
               sum(e.duration_minutes)::bigint AS minutes,
               sum((e.duration_minutes::bigint * COALESCE(r.rate, 0) * 2 + 60) / 120)::bigint AS amount_cents,
               sum(e.duration_minutes::bigint * COALESCE(r.rate, 0))::bigint AS rate_minutes, count(*) AS entries,
               count(*) FILTER (WHERE r.rate IS NULL) AS unpriced_entries
        FROM (SELECT * FROM time_entries WHERE org_id = p_org AND user_id = p_user AND status = 'Approved' AND date >= date_trunc('month', from_date)::date) e
        LEFT JOIN LATERAL (SELECT lr.loaded_rate_cents AS rate FROM labor_rates lr
                           WHERE lr.org_id = e.org_id AND lr.user_id = e.user_id AND lr.effective_date <= e.date
                           ORDER BY lr.effective_date DESC LIMIT 1) r ON true
        WHERE e.status = 'Approved'
        GROUP BY 1, 2, 3, 4, 5, 6;
END $$;

-- A rate change waits for approvals in flight and holds new ones back
-- until it commits (rate changes are rare Admin actions), so a reprice and
-- an approval never count the same entry twice or miss it.
CREATE FUNCTION capex_ticket_rollup_rates_ins() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    LOCK TABLE capex_ticket_rollup IN SHARE ROW EXCLUSIVE MODE;
    FOR r IN SELECT org_id, user_id, min(effective_date) AS from_date FROM new_rows GROUP BY org_id, user_id LOOP
        PERFORM capex_ticket_rollup_reprice(r.org_id, r.user_id, r.from_date);
    END LOOP;
    RETURN NULL;
END $$;

CREATE FUNCTION capex_ticket_rollup_rates_del() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    LOCK TABLE capex_ticket_rollup IN SHARE ROW EXCLUSIVE MODE;
    FOR r IN SELECT org_id, user_id, min(effective_date) AS from_date FROM old_rows GROUP BY org_id, user_id LOOP
        PERFORM capex_ticket_rollup_reprice(r.org_id, r.user_id, r.from_date);
    END LOOP;
    RETURN NULL;
END $$;

CREATE FUNCTION capex_ticket_rollup_rates_upd() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    LOCK TABLE capex_ticket_rollup IN SHARE ROW EXCLUSIVE MODE;
    FOR r IN SELECT org_id, user_id, min(effective_date) AS from_date FROM (
                 SELECT org_id, user_id, effective_date FROM new_rows
                 UNION ALL SELECT org_id, user_id, effective_date FROM old_rows) x
             GROUP BY org_id, user_id LOOP
        PERFORM capex_ticket_rollup_reprice(r.org_id, r.user_id, r.from_date);
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER capex_ticket_rollup_rates_ins AFTER INSERT ON labor_rates REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION capex_ticket_rollup_rates_ins();
CREATE TRIGGER capex_ticket_rollup_rates_upd AFTER UPDATE ON labor_rates REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION capex_ticket_rollup_rates_upd();
CREATE TRIGGER capex_ticket_rollup_rates_del AFTER DELETE ON labor_rates REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION capex_ticket_rollup_rates_del();

-- Backfill from the approved entries already stored.
INSERT INTO capex_ticket_rollup (org_id, month, ticket_id, project_id, user_id, activity_type, minutes, amount_cents,
                          rate_minutes, entries, unpriced_entries)
    SELECT e.org_id, date_trunc('month', e.date)::date AS month, e.ticket_id, e.project_id, e.user_id, e.activity_type,
               sum(e.duration_minutes)::bigint AS minutes,
               sum((e.duration_minutes::bigint * COALESCE(r.rate, 0) * 2 + 60) / 120)::bigint AS amount_cents,
               sum(e.duration_minutes::bigint * COALESCE(r.rate, 0))::bigint AS rate_minutes, count(*) AS entries,
               count(*) FILTER (WHERE r.rate IS NULL) AS unpriced_entries
        FROM time_entries e
        LEFT JOIN LATERAL (SELECT lr.loaded_rate_cents AS rate FROM labor_rates lr
                           WHERE lr.org_id = e.org_id AND lr.user_id = e.user_id AND lr.effective_date <= e.date
                           ORDER BY lr.effective_date DESC LIMIT 1) r ON true
        WHERE e.status = 'Approved'
        GROUP BY 1, 2, 3, 4, 5, 6;
