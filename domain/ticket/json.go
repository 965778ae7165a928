package ticket

// The hand-written parts of Ticket's JSON: the value encoders the generated
// AppendJSON (json_gen.go) calls. Reads of tickets are the service's hottest
// path; reflection-based encoding of a 20-ticket page was a sixth of the
// API's CPU for a list, so the encoder is generated from Ticket's json tags.

// Regenerating starts from a stub AppendJSON, so a field removed from Ticket
// (which the old json_gen.go still names) does not stop the test compiling.
//go:generate sh -c "printf 'package ticket\\n\\nfunc (Ticket) AppendJSON(b []byte) []byte { return b }\\n' > json_gen.go"
//go:generate go test -run TestGeneratedJSON -update .

import (
	"encoding/hex"
	"time"

	"github.com/google/uuid"

	"tracker/internal/jsonw"
)

func appendUUID(b []byte, id uuid.UUID) []byte {
	var buf [36]byte
	hex.Encode(buf[0:8], id[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], id[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], id[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], id[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], id[10:])
	b = append(b, '"')
	b = append(b, buf[:]...)
	return append(b, '"')
}

func appendUUIDPtr(b []byte, id *uuid.UUID) []byte {
	if id == nil {
		return append(b, "null"...)
	}
	return appendUUID(b, *id)
}

// appendTime is time.Time's MarshalJSON (RFC 3339 with nanoseconds).
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendString quotes s as json.Marshal does (jsonw.AppendString); the
// generated encoder calls it.
func appendString(b []byte, s string) []byte { return jsonw.AppendString(b, s) }

// MarshalJSON renders the ticket with AppendJSON, so events and every
// response agree with the hot paths that append it directly.
func (t Ticket) MarshalJSON() ([]byte, error) { return t.AppendJSON(make([]byte, 0, 512)), nil }
