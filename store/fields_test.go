package store_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/storetest"
)

// civilRow has one field of each civil type, plain and nullable.
type civilRow struct {
	ID      uuid.UUID      `db:"id"`
	Day     civil.Date     `db:"day"`
	MaybeDy *civil.Date    `db:"maybe_day"`
	Amount  civil.Decimal  `db:"amount"`
	MaybeAm *civil.Decimal `db:"maybe_amount"`
}

var civilFields = store.FieldsOf[civilRow]()

// Dates and two-place decimals go through real PostgreSQL date and
// numeric(14,2) columns both ways: one row by named arguments, many by the
// unnest arrays FieldsOf builds (so their casts are the columns' types), and
// back through the scan targets, NULLs included. The values are chosen where
// a wrong representation shows: a leap day, a day before 1970, a negative
// amount under one unit, and an amount past float64's exact cents.
func TestFieldsRoundTripDateAndNumeric(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	if got := civilFields.Types(); got[1] != "date" || got[2] != "date" || got[3] != "numeric" || got[4] != "numeric" {
		t.Fatalf("types %v", got)
	}
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE civil_rows (id uuid PRIMARY KEY, day date NOT NULL,
		maybe_day date, amount numeric(20,2) NOT NULL, maybe_amount numeric(20,2))`); err != nil {
		t.Fatal(err)
	}
	leap, old := civil.Date{Year: 2024, Month: 2, Day: 29}, civil.Date{Year: 1969, Month: 12, Day: 31}
	cents := civil.Decimal(-5)
	rows := []civilRow{
		{ID: uuid.New(), Day: leap, MaybeDy: &old, Amount: 1250, MaybeAm: &cents},
		{ID: uuid.New(), Day: old, Amount: 9007199254740993}, // 2^53+1 hundredths: no float holds it
	}
	if _, err := db.Pool.Exec(ctx, "INSERT INTO civil_rows ("+store.Cols(civilFields.Names())+
		") VALUES (@id, @day, @maybe_day, @amount, @maybe_amount)", civilFields.Named(&rows[0], pgx.NamedArgs{})); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "INSERT INTO civil_rows SELECT * FROM "+civilFields.Unnest("u", 1),
		civilFields.Arrays(rows[1:])...); err != nil {
		t.Fatal(err)
	}
	// PostgreSQL's own rendering: the values arrived as written.
	text := storetest.Lines(t, db.Pool, `SELECT concat_ws(' ', day, maybe_day, amount, maybe_amount)
		FROM civil_rows ORDER BY day DESC`)
	if len(text) != 2 || text[0] != "2024-02-29 1969-12-31 12.50 -0.05" || text[1] != "1969-12-31 90071992547409.93" {
		t.Fatalf("stored as %q", text)
	}
	for _, want := range rows {
		var got civilRow
		if err := db.Pool.QueryRow(ctx, "SELECT "+store.Cols(civilFields.Names())+" FROM civil_rows WHERE id = $1",
			want.ID).Scan(civilFields.Targets(&got)...); err != nil {
			t.Fatal(err)
		}
		if got.ID != want.ID || got.Day != want.Day || got.Amount != want.Amount ||
			!samePtr(got.MaybeDy, want.MaybeDy) || !samePtr(got.MaybeAm, want.MaybeAm) {
			t.Errorf("read back %+v, wrote %+v", got, want)
		}
	}
	// numeric without a scale: exact values of up to two places scan, a
	// third place is refused rather than rounded.
	var d civil.Decimal
	if err := db.Pool.QueryRow(ctx, "SELECT 3.1::numeric").Scan(&d); err != nil || d != 310 {
		t.Errorf("3.1 scanned as %v, %v", d, err)
	}
	if err := db.Pool.QueryRow(ctx, "SELECT 1e3::numeric").Scan(&d); err != nil || d != 100000 {
		t.Errorf("1e3 scanned as %v, %v", d, err)
	}
	if err := db.Pool.QueryRow(ctx, "SELECT 0.125::numeric").Scan(&d); err == nil {
		t.Errorf("0.125 scanned as %v, want an error", d)
	}
}

func samePtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
