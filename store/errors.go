package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The store's closed error set; nothing above store sees a pgx error.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	// ErrInvalidRef is a foreign key that points at nothing.
	ErrInvalidRef = errors.New("invalid reference")
)

// ConstraintError carries the constraint behind ErrConflict or ErrInvalidRef,
// so the domain can name the field in its message.
type ConstraintError struct {
	Kind       error
	Constraint string
	Err        error
}

func (e *ConstraintError) Error() string {
	return fmt.Sprintf("%v: %s", e.Kind, e.Constraint)
}

func (e *ConstraintError) Is(target error) bool { return target == e.Kind }
func (e *ConstraintError) Unwrap() error        { return e.Err }

// translate is the one boundary where driver errors become store errors.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505", "23P01":
			return &ConstraintError{Kind: ErrConflict, Constraint: pgErr.ConstraintName, Err: err}
		case "23503":
			return &ConstraintError{Kind: ErrInvalidRef, Constraint: pgErr.ConstraintName, Err: err}
		case "22P02":
			// invalid text representation (e.g. a malformed uuid in a filter)
			return ErrNotFound
		}
	}
	return err
}

// Translate exposes translate for store sub-packages that run raw SQL.
func Translate(err error) error { return translate(err) }
