package capexdb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// AmortProject is a live project with an amortization period, with the
// columns that classify its cost.
type AmortProject struct {
	ID                 uuid.UUID  `db:"id"`
	Key                string     `db:"key"`
	Name               string     `db:"name"`
	CapitalizationType *string    `db:"capitalization_type"`
	DevelopmentPhase   *string    `db:"development_phase"`
	AmortizationMonths int64      `db:"amortization_months"`
	PlacedInService    *time.Time `db:"placed_in_service"`
}

// AmortProjects lists orgID's live projects with amortization_months of at
// least 1, by key: only projectID when given, only projects when restricted.
func AmortProjects(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, restricted bool, projects []uuid.UUID) ([]AmortProject, error) {
	if projects == nil {
		projects = []uuid.UUID{}
	}
	var pid *uuid.UUID
	if projectID != uuid.Nil {
		pid = &projectID
	}
	return store.SelectRaw[AmortProject](ctx, q, `SELECT p.id, p.key, p.name, p.capitalization_type, p.development_phase,
	        p.amortization_months::bigint AS amortization_months, p.placed_in_service
	    FROM projects p
	    WHERE p.org_id = $1 AND p.deleted_at IS NULL AND p.amortization_months >= 1
	      AND ($2::uuid IS NULL OR p.id = $2) AND (NOT $3 OR p.id = ANY($4))
	    ORDER BY p.key, p.id`, orgID, pid, restricted, projects)
}

// MonthAmount is the approved, priced amount of one project in one month.
type MonthAmount struct {
	ProjectID   uuid.UUID `db:"project_id"`
	Month       time.Time `db:"month"`
	AmountCents int64     `db:"amount_cents"`
}

// MonthlyAmounts sums the rollup per (project, month) for the projects,
// over the months before to (month-aligned).
func MonthlyAmounts(ctx context.Context, q store.Querier, orgID uuid.UUID, projects []uuid.UUID, to time.Time) ([]MonthAmount, error) {
	return store.SelectRaw[MonthAmount](ctx, q, `SELECT project_id, month, sum(amount_cents)::bigint AS amount_cents
	    FROM capex_rollup WHERE org_id = $1 AND project_id = ANY($2) AND month < $3
	    GROUP BY project_id, month`, orgID, projects, to)
}
