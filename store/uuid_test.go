package store_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"tracker/store"
	"tracker/store/storetest"
)

// The pool's connections carry the binary uuid codec: ids, nullable ids and
// id arrays go out and come back as raw bytes, NULL scans into a nil
// pointer, and text (uuid.UUID's Valuer) is no longer the plan.
func TestPoolSendsUUIDsAsBinary(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	a, b := uuid.New(), uuid.New()
	var got uuid.UUID
	var arr []uuid.UUID
	var null *uuid.UUID = &a
	var some *uuid.UUID
	err := db.Pool.QueryRow(ctx, "SELECT $1::uuid, $2::uuid[], NULL::uuid, $3::uuid",
		a, []uuid.UUID{a, b}, &b).Scan(&got, &arr, &null, &some)
	if err != nil {
		t.Fatal(err)
	}
	if got != a || len(arr) != 2 || arr[0] != a || arr[1] != b || null != nil || some == nil || *some != b {
		t.Fatalf("round trip: %v %v %v %v", got, arr, null, some)
	}
	var n int
	if err := db.Pool.QueryRow(ctx, "SELECT count(*) FROM unnest($1::uuid[]) u WHERE u = ANY($2)",
		[]uuid.UUID{a, b, a}, []uuid.UUID{a}).Scan(&n); err != nil || n != 2 {
		t.Fatalf("ANY over ids: %d, %v", n, err)
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	m := conn.Conn().TypeMap()
	checkBinary(t, m)
}

func checkBinary(t *testing.T, m *pgtype.Map) {
	t.Helper()
	id := uuid.New()
	buf, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id, nil)
	if err != nil || string(buf) != string(id[:]) {
		t.Fatalf("uuid.UUID encodes to %x (%v), want its 16 bytes", buf, err)
	}
	if _, ok := m.PlanScan(pgtype.UUIDOID, pgtype.BinaryFormatCode, &id).(interface{ Scan([]byte, any) error }); !ok {
		t.Fatal("no scan plan")
	}
	var back uuid.UUID
	if err := m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, id[:], &back); err != nil || back != id {
		t.Fatalf("scan: %v %v", back, err)
	}
}

// A bare map (what a connection had before) plans uuid.UUID through its
// driver.Valuer: a string formatted and parsed back per id. RegisterUUID
// replaces that plan with a copy of the 16 bytes.
func TestRegisterUUIDReplacesTheTextPlan(t *testing.T) {
	m := pgtype.NewMap()
	id := uuid.New()
	if p := fmt.Sprintf("%T", m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id)); !strings.Contains(p, "Valuer") {
		t.Fatalf("default plan %s: pgx changed; is RegisterUUID still needed?", p)
	}
	store.RegisterUUID(m)
	for _, v := range []any{id, &id, []uuid.UUID{id}} {
		oid := uint32(pgtype.UUIDOID)
		if _, ok := v.([]uuid.UUID); ok {
			oid = pgtype.UUIDArrayOID
		}
		buf, err := m.Encode(oid, pgtype.BinaryFormatCode, v, nil)
		if err != nil || !bytes.Contains(buf, id[:]) {
			t.Fatalf("%T encodes to %x (%v)", v, buf, err)
		}
	}
	if p := fmt.Sprintf("%T", m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id)); strings.Contains(p, "Valuer") {
		t.Fatalf("registered plan is still %s", p)
	}
	checkBinary(t, m)
}
