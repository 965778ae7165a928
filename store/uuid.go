package store

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// RegisterUUID makes uuid.UUID travel as the 16 raw bytes of PostgreSQL's
// binary uuid format, in both directions and inside uuid[] arrays. Without
// it uuid.UUID is a driver.Valuer and sql.Scanner, which pgx renders as
// text and parses back one id at a time (a quarter of an export's CPU once).
// Open registers it on every connection of the pool (AfterConnect), so
// store packages pass uuid.UUID, *uuid.UUID and []uuid.UUID as they are:
// no package needs a helper converting ids to [16]byte.
func RegisterUUID(m *pgtype.Map) {
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}

// uuidCodec is pgx's uuid codec plus binary plans for uuid.UUID.
type uuidCodec struct{ pgtype.UUIDCodec }

func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return encodeUUID{}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*uuid.UUID); ok && format == pgtype.BinaryFormatCode {
		return scanUUID{}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

type encodeUUID struct{}

func (encodeUUID) Encode(value any, buf []byte) ([]byte, error) {
	id := value.(uuid.UUID)
	return append(buf, id[:]...), nil
}

type scanUUID struct{}

// Scan copies the 16 bytes. NULL leaves the target as it is, as
// uuid.UUID.Scan does (a nullable column scans into **uuid.UUID).
func (scanUUID) Scan(src []byte, dst any) error {
	if src == nil {
		return nil
	}
	if len(src) != 16 {
		return fmt.Errorf("uuid: %d bytes, want 16", len(src))
	}
	copy(dst.(*uuid.UUID)[:], src)
	return nil
}
