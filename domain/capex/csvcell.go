package capex

// SafeCell neutralises a spreadsheet formula in a CSV cell
// (OWASP's CSV injection rule): text that starts with =, +, -, @, a tab or
// a carriage return is prefixed with a single quote, so a spreadsheet shows
// it as text instead of evaluating it. A plain number ("-12.50", "-3") is
// not a formula and stays as it is, so negative amounts remain numbers.
// Every cell of every CSV export that can carry user text goes through it;
// the XLSX exports write text as typed inline strings, which a spreadsheet
// never evaluates.
func SafeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if isPlainNumber(s) {
			return s
		}
		return "'" + s
	}
	return s
}

// SafeRow applies SafeCell to every cell of a row, in place.
func SafeRow(row []string) []string {
	for i, c := range row {
		row[i] = SafeCell(c)
	}
	return row
}

// isPlainNumber reports whether s is an optional minus, digits, and an
// optional fraction of digits.
func isPlainNumber(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot && digits > 0 && i < len(s)-1:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}
