package sprints

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain/sprint"
	"tracker/internal/svgchart"
)

// Colors of the burndown's series.
const (
	remainingColor = "#2563eb"
	idealColor     = "#9ca3af"
)

// burndownSVG draws the sprint's burndown (the same days as the JSON
// burndown): the tickets remaining at the end of each day and the ideal
// straight line from all of them on the first day to none on the last.
func (h Handlers) burndownSVG(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "sprint")
	if err != nil {
		return err
	}
	sp, err := h.sprints.Get(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	bd, err := h.sprints.Burndown(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return api.SendSVG(c, BurndownChart(sp.Name, bd).Render())
}

// BurndownChart is the chart of bd for the sprint named name.
func BurndownChart(name string, bd sprint.Burndown) svgchart.Chart {
	n := len(bd.Data)
	days := make([]string, n)
	remaining := make([]float64, n)
	ideal := make([]float64, n)
	for i, d := range bd.Data {
		days[i] = shortDate(d.Date)
		remaining[i] = float64(d.RemainingTickets)
		ideal[i] = float64(d.TotalTickets)
		if n > 1 {
			ideal[i] = float64(d.TotalTickets) * float64(n-1-i) / float64(n-1)
		}
	}
	return svgchart.Chart{Kind: svgchart.Line, Title: "Burndown: " + name, XTitle: "Day (UTC)", YTitle: "Tickets remaining",
		Categories: days, Integer: true, Series: []svgchart.Series{
			{Name: "Remaining", Color: remainingColor, Values: remaining},
			{Name: "Ideal", Color: idealColor, Dashed: true, Values: ideal},
		}}
}

// shortDate shows "2026-11-03" as "11-03".
func shortDate(d string) string {
	if len(d) == len("2006-01-02") {
		return d[5:]
	}
	return d
}
