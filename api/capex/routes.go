// Package capex serves the capitalization report, its CSV export and the
// stored monthly exports.
package capex

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/capex"
	"tracker/internal/disposition"
)

// Handlers serve the report routes.
type Handlers struct {
	reports *capex.Service
}

// New builds the handlers with every dependency they need.
func New(reports *capex.Service) Handlers {
	return Handlers{reports: reports}
}

// Routes registers the report routes.
func (h Handlers) Routes(r api.Router) {
	r.Get("/reports/capitalization", h.report)
	r.Get("/reports/capitalization/export", h.exportCSV)
	r.Get("/reports/capitalization/entries", h.entries)
	r.Get("/reports/capitalization/people", h.people)
	r.Get("/reports/capitalization/trend.svg", h.trendSVG)
	r.Get("/reports/capitalization/exports", h.listExports)
	r.Post("/reports/capitalization/exports", api.Body(fiber.StatusAccepted, h.requestExport))
	r.Get("/reports/capitalization/exports/:id", h.getExport)
	r.Get("/reports/capitalization/exports/:id/download", h.download)
	r.Get("/reports/amortization", h.amortization)
	h.periodRoutes(r)
	h.policyRoutes(r)
}

// query reads the report's query string; withGroup also reads group_by
// (the CSV export has no grouping).
func query(c *fiber.Ctx, withGroup bool) (capex.Query, error) {
	raw, err := rawQuery(c)
	if err != nil {
		return capex.Query{}, err
	}
	raw.Period = c.Query("period")
	if withGroup {
		raw.GroupBy = c.Query("group_by")
	}
	return capex.ParseQuery(raw)
}

// rawQuery reads the report's filters.
func rawQuery(c *fiber.Ctx) (capex.RawQuery, error) {
	var raw capex.RawQuery
	var err error
	if raw.OrgID, err = api.QueryID(c, "org_id"); err != nil {
		return raw, err
	}
	if raw.TeamID, err = api.QueryID(c, "team_id"); err != nil {
		return raw, err
	}
	if raw.UserID, err = api.QueryID(c, "user_id"); err != nil {
		return raw, err
	}
	if raw.IncludeUsers, err = api.QueryBool(c, "include_users"); err != nil {
		return raw, err
	}
	if raw.IncludeBudget, err = api.QueryBool(c, "include_budget"); err != nil {
		return raw, err
	}
	raw.CostCenterID = c.Query("cost_center_id")
	raw.ActivityType = c.Query("activity_type")
	raw.Tag = c.Query("tag")
	return raw, nil
}

func (h Handlers) report(c *fiber.Ctx) error {
	q, err := query(c, true)
	if err != nil {
		return err
	}
	rep, err := h.reports.Report(c.UserContext(), api.Principal(c), q)
	if err != nil {
		return err
	}
	// What c.JSON(rep) would send, encoded without reflection (a month
	// grouped by user is tens of thousands of objects).
	raw, err := rep.AppendJSON(make([]byte, 0, 4096))
	if err != nil {
		return err
	}
	c.Response().SetBodyRaw(raw)
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	return nil
}

func (h Handlers) exportCSV(c *fiber.Ctx) error {
	format := c.Query("format")
	if format != "" && format != "csv" && format != "xlsx" {
		return domain.Invalid("format: must be csv or xlsx")
	}
	q, err := query(c, false)
	if err != nil {
		return err
	}
	if format == "xlsx" {
		data, err := h.reports.ExportXLSX(c.UserContext(), api.Principal(c), q)
		if err != nil {
			return err
		}
		return sendXLSX(c, "capitalization-"+q.Period.String()+".xlsx", data)
	}
	data, err := h.reports.ExportCSV(c.UserContext(), api.Principal(c), q)
	if err != nil {
		return err
	}
	return sendCSV(c, "capitalization-"+q.Period.String()+".csv", data)
}

// sendXLSX answers an XLSX workbook as a download.
func sendXLSX(c *fiber.Ctx, filename string, data []byte) error {
	c.Set(fiber.HeaderContentType, capex.XLSXContentType)
	c.Set(fiber.HeaderContentDisposition, disposition.Attachment(filename))
	return c.Send(data)
}

// sendCSV answers a CSV file as a download.
func sendCSV(c *fiber.Ctx, filename string, data []byte) error {
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, disposition.Attachment(filename))
	return c.Send(data)
}

type requestReq struct {
	Period string    `json:"period" validate:"required"`
	OrgID  uuid.UUID `json:"org_id"`
}

// requestExport starts a run now: 202 with the Pending run, which the list
// and GET .../exports/{id} follow until Completed.
func (h Handlers) requestExport(ctx context.Context, p domain.Principal, req requestReq) (capex.Export, error) {
	return h.reports.RequestExport(ctx, p, req.OrgID, req.Period)
}

func (h Handlers) listExports(c *fiber.Ctx) error {
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	page, err := api.PageParams(c, 20)
	if err != nil {
		return err
	}
	list, err := h.reports.ListExports(c.UserContext(), api.Principal(c), orgID, c.Query("period"), page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(list))
}

func (h Handlers) getExport(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "export")
	if err != nil {
		return err
	}
	e, err := h.reports.GetExport(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, e)
}

func (h Handlers) download(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "export")
	if err != nil {
		return err
	}
	format := c.Query("format")
	if format != "" && format != "csv" && format != "xlsx" {
		return domain.Invalid("format: must be csv or xlsx")
	}
	e, data, err := h.reports.Download(c.UserContext(), api.Principal(c), id, format == "xlsx")
	if err != nil {
		return err
	}
	if format == "xlsx" {
		return sendXLSX(c, "capitalization-"+e.Period+"-"+e.ID.String()+".xlsx", data)
	}
	return sendCSV(c, "capitalization-"+e.Period+"-"+e.ID.String()+".csv", data)
}

// entriesResp is a drill-down page with the list's cursor fields.
type entriesResp struct {
	capex.Entries
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// entries serves the approved entries behind a report line: JSON pages
// (limit, cursor) or, with format=csv or xlsx, every entry as one file.
func (h Handlers) entries(c *fiber.Ctx) error {
	format := c.Query("format")
	if format != "" && format != "csv" && format != "json" && format != "xlsx" {
		return domain.Invalid("format: must be json, csv or xlsx")
	}
	q, err := query(c, false)
	if err != nil {
		return err
	}
	eq := capex.EntriesQuery{Query: q}
	if eq.ProjectID, err = api.QueryID(c, "project_id"); err != nil {
		return err
	}
	if format == "csv" || format == "xlsx" {
		render, ctype := h.reports.EntriesCSV, "text/csv; charset=utf-8"
		if format == "xlsx" {
			render, ctype = h.reports.EntriesXLSX, capex.XLSXContentType
		}
		write, err := render(c.UserContext(), api.Principal(c), eq)
		if err != nil {
			return err
		}
		// Streamed after the handler returns (the request's context is
		// then done: the stream keeps its values only), so 100k entries
		// never sit in memory (the XLSX's rows pass through excelize's
		// stream writer and its temporary file); an error mid-stream ends it.
		c.Set(fiber.HeaderContentType, ctype)
		c.Set(fiber.HeaderContentDisposition, disposition.Attachment("capitalization-entries-"+q.Period.String()+"."+format))
		reqID := api.RequestID(c)
		c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
			if err := write(w); err != nil {
				slog.Default().Error("drill-down export stream failed", "format", format, "request_id", reqID, "error", err)
			}
		})
		return nil
	}
	page, err := api.PageParams(c, 100)
	if err != nil {
		return err
	}
	out, err := h.reports.Entries(c.UserContext(), api.Principal(c), eq, page)
	if err != nil {
		return err
	}
	resp := entriesResp{Entries: out, HasMore: out.Next != nil}
	if out.Next != nil {
		s := api.EncodeCursor(*out.Next)
		resp.NextCursor = &s
	}
	return api.Send(c, fiber.StatusOK, resp)
}

// amortization serves the amortization schedule as JSON or, with
// format=csv or xlsx, as a file.
func (h Handlers) amortization(c *fiber.Ctx) error {
	format := c.Query("format")
	if format != "" && format != "csv" && format != "json" && format != "xlsx" {
		return domain.Invalid("format: must be json, csv or xlsx")
	}
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	projectID, err := api.QueryID(c, "project_id")
	if err != nil {
		return err
	}
	rep, err := h.reports.Amortization(c.UserContext(), api.Principal(c), capex.AmortRequest{
		OrgID: orgID, ProjectID: projectID, From: c.Query("from"), To: c.Query("to")})
	if err != nil {
		return err
	}
	if format == "csv" {
		data, err := capex.WriteAmortCSV(rep)
		if err != nil {
			return err
		}
		return sendCSV(c, "amortization-"+rep.From+"-"+rep.To+".csv", data)
	}
	if format == "xlsx" {
		var buf bytes.Buffer
		if err := capex.WriteAmortXLSX(&buf, rep); err != nil {
			return err
		}
		return sendXLSX(c, "amortization-"+rep.From+"-"+rep.To+".xlsx", buf.Bytes())
	}
	return api.Send(c, fiber.StatusOK, rep)
}
