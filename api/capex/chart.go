package capex

import (
	"math"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain/capex"
	"tracker/internal/svgchart"
)

// Colors of the trend's series.
const (
	capexColor = "#16a34a"
	opexColor  = "#f59e0b"
)

// trendSVG draws CapEx against OpEx for each month of from..to: the totals
// of each month's capitalization report, with the report's filters.
func (h Handlers) trendSVG(c *fiber.Ctx) error {
	raw, err := rawQuery(c)
	if err != nil {
		return err
	}
	q, err := capex.ParseTrendQuery(raw)
	if err != nil {
		return err
	}
	months, err := h.reports.Trend(c.UserContext(), api.Principal(c), q, c.Query("from"), c.Query("to"))
	if err != nil {
		return err
	}
	return api.SendSVG(c, TrendChart(months).Render())
}

// TrendChart is the bar chart of months, in currency units (cents / 100,
// as the CSV writes amounts).
func TrendChart(months []capex.TrendMonth) svgchart.Chart {
	cats := make([]string, len(months))
	cx := make([]float64, len(months))
	ox := make([]float64, len(months))
	for i, m := range months {
		cats[i] = m.Period
		cx[i] = float64(m.CapExAmountCents) / 100
		ox[i] = float64(m.OpExAmountCents) / 100
	}
	title := "CapEx vs OpEx by month"
	if len(months) > 0 {
		title += ", " + months[0].Period + " to " + months[len(months)-1].Period
	}
	return svgchart.Chart{Kind: svgchart.Bars, Title: title, XTitle: "Month", YTitle: "Amount (currency units)",
		Categories: cats, Format: units, Series: []svgchart.Series{
			{Name: "CapEx", Color: capexColor, Values: cx},
			{Name: "OpEx", Color: opexColor, Values: ox},
		}}
}

// units writes a tick as "12,500" (cents shown only when not whole).
func units(v float64) string {
	dec := 0
	if math.Abs(v-math.Round(v)) > 1e-9 {
		dec = 2
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	whole, frac := s, ""
	if i := len(s) - 3; dec == 2 {
		whole, frac = s[:i], s[i:]
	}
	var out []byte
	for i := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, whole[i])
	}
	return string(out) + frac
}
