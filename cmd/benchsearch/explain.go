package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/domain/search"
	"tracker/domain/statusflow"
	"tracker/internal/searchquery"
	"tracker/store/searchdb"
)

// explain prints EXPLAIN ANALYZE of the SQL the org-wide search runs for q
// (as the org's Owner would), to see why a filter is slow.
func explain(ctx context.Context, c config, w world, q string) error {
	pool, err := pgxpool.New(ctx, c.DB)
	if err != nil {
		return err
	}
	defer pool.Close()
	var owner uuid.UUID
	if err := pool.QueryRow(ctx, `SELECT user_id FROM memberships WHERE org_id = $1 AND role = 'owner' LIMIT 1`, w.orgID).Scan(&owner); err != nil {
		return err
	}
	pq, err := searchquery.Parse(q)
	if err != nil {
		return err
	}
	statuses, _ := json.Marshal(statusflow.DefaultStatuses())
	s := searchdb.Search{Env: searchdb.Env{OrgID: w.orgID, UserID: owner, Now: time.Now().UTC(), DefaultStatuses: statuses},
		Root: pq.Root, Sort: pq.Sort, RankText: pq.RankText(), Limit: 20}
	if err := search.ResolveCustom(ctx, pool, &s); err != nil {
		return err
	}
	s, err = searchdb.Resolve(ctx, pool, s)
	if err != nil {
		return err
	}
	b, err := searchdb.Page(s)
	if err != nil {
		return err
	}
	sql, args, err := b.ToSql()
	if err != nil {
		return err
	}
	rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Printf("-- %s\n%s\n", q, sql)
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		fmt.Println(line)
	}
	return rows.Err()
}
