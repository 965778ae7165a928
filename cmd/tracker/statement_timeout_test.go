package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"tracker/store/storetest"
)

// The statement timeouts: 30 s for the API's pool and 5 min for the
// worker's by default, any Go duration from the environment, 0 for the
// database's own setting; anything else stops the start naming the
// variable. openDB gives the pool its timeout.
func TestStatementTimeoutConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		api, worker         string
		wantAPI, wantWorker time.Duration
		wantErr             string
	}{
		"defaults":           {wantAPI: 30 * time.Second, wantWorker: 5 * time.Minute},
		"set":                {api: "2s", worker: "1h", wantAPI: 2 * time.Second, wantWorker: time.Hour},
		"zero: the database": {api: "0", worker: "0"},
		"not a duration":     {api: "30", wantErr: "SERVICE_DB_STATEMENT_TIMEOUT"},
		"negative":           {worker: "-1s", wantErr: "SERVICE_WORKER_DB_STATEMENT_TIMEOUT"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("SERVICE_PROFILE", "development")
			t.Setenv("SERVICE_DB_STATEMENT_TIMEOUT", tc.api)
			t.Setenv("SERVICE_WORKER_DB_STATEMENT_TIMEOUT", tc.worker)
			c, _, err := loadConfig()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || c.DBStatementTimeout != tc.wantAPI || c.WorkerDBStatementTimeout != tc.wantWorker {
				t.Fatalf("api %v, worker %v, err %v", c.DBStatementTimeout, c.WorkerDBStatementTimeout, err)
			}
		})
	}

	ctx := context.Background()
	_, url := storetest.NewWithURL(t)
	db, err := openDB(ctx, url, 1500*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var setting string
	if err := db.Pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&setting); err != nil || setting != "1500ms" {
		t.Fatalf("the pool's statement_timeout %q, %v", setting, err)
	}
}
