package ticket

import (
	"encoding/hex"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// AppendJSON appends the ticket exactly as encoding/json renders it (the
// test holds the two together). Reads of tickets are the service's hottest
// path; reflection-based encoding of a 20-ticket page was a sixth of the
// API's CPU for a list.
func (t Ticket) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendUUID(b, t.ID)
	b = append(b, `,"project_id":`...)
	b = appendUUID(b, t.ProjectID)
	b = append(b, `,"ticket_number":`...)
	b = strconv.AppendInt(b, int64(t.TicketNumber), 10)
	b = append(b, `,"title":`...)
	b = appendString(b, t.Title)
	b = append(b, `,"description":`...)
	if t.Description == nil {
		b = append(b, "null"...)
	} else {
		b = appendString(b, *t.Description)
	}
	b = append(b, `,"status":`...)
	b = appendString(b, t.Status)
	b = append(b, `,"priority":`...)
	b = appendString(b, t.Priority)
	b = append(b, `,"assignee_id":`...)
	b = appendUUIDPtr(b, t.AssigneeID)
	b = append(b, `,"reporter_id":`...)
	b = appendUUID(b, t.ReporterID)
	b = append(b, `,"sprint_id":`...)
	b = appendUUIDPtr(b, t.SprintID)
	b = append(b, `,"parent_id":`...)
	b = appendUUIDPtr(b, t.ParentID)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, t.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendTime(b, t.UpdatedAt)
	return append(b, '}')
}

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

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does by default: HTML-sensitive
// characters, control characters, U+2028/U+2029 escaped, invalid UTF-8
// replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// MarshalJSON renders the ticket with AppendJSON, so events and every
// response agree with the hot paths that append it directly.
func (t Ticket) MarshalJSON() ([]byte, error) { return t.AppendJSON(make([]byte, 0, 512)), nil }
