package pages

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

const gpusPerPage = 50

// GPUList is GET /gpus: search, interconnect filter, pages.
func (s *Handlers) GPUList(c echo.Context) error {
	in := web.GPUsRecords{Query: strings.TrimSpace(c.QueryParam("q")), CanEdit: s.Can(c, http.MethodPost, "/gpus"),
		Page: server.PageParam(c), PerPage: gpusPerPage}
	if ic := c.QueryParam("interconnect"); slices.Contains(market.GPUInterconnects, ic) {
		in.Interconnect = ic
	}
	var err error
	if in.GPUs, in.Total, err = s.Store.GPUModels(c.Request().Context(), store.GPUModelFilter{Query: in.Query,
		Interconnect: in.Interconnect, Offset: (in.Page - 1) * gpusPerPage, Limit: gpusPerPage}); err != nil {
		return err
	}
	v := web.NewGPUsView(in)
	v.Page = s.Page(c, "gpu.list.title")
	return s.Render(c, http.StatusOK, v.Page, web.GPUs(v))
}

// GPUShow is GET /gpus/:id: the spec sheet and the labelled figures per
// precision.
func (s *Handlers) GPUShow(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	g, err := s.Store.GPUModelByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	v := web.NewGPUView(g, server.Translator(c), s.Can(c, http.MethodPost, "/gpus/:id"))
	v.Page = s.Page(c, "gpu.detail.title")
	v.Page.Title = g.Vendor + " " + g.Name
	return s.Render(c, http.StatusOK, v.Page, web.GPU(v))
}

// GPUFormPage is GET /gpus/new and GET /gpus/:id/edit.
func (s *Handlers) GPUFormPage(c echo.Context) error {
	g, titleID, err := editing(c, market.GPUModel{Interconnect: "pcie"}, s.Store.GPUModelByID, "gpu")
	if err != nil {
		return err
	}
	f := web.NewGPUForm(g)
	f.Page = s.Page(c, titleID)
	return s.Render(c, http.StatusOK, f.Page, web.GPUFormPage(f))
}

// gpuSave is POST /gpus (id 0) and POST /gpus/:id, through the one save
// path of edited market data (saveEdit).
func (s *Handlers) gpuSave(c echo.Context, id int64) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	g := market.ReadGPUModel(r)
	g.ID = id
	f := web.GPUFormTyped(id, r.Raw)
	f.Errors = r.Errs
	return s.saveEdit(c, edit{
		errs: r.Errs, id: id, lock: &g.LockVersion, takenID: "gpu.error.name_taken",
		create: func() (int64, error) {
			out, err := s.Store.CreateGPUModel(c.Request().Context(), s.Actor(c), g)
			return out.ID, err
		},
		update: func() error { _, err := s.Store.UpdateGPUModel(c.Request().Context(), s.Actor(c), g); return err },
		current: func() (int, error) {
			cur, err := s.Store.GPUModelByID(c.Request().Context(), id)
			return cur.LockVersion, err
		},
		path: "/gpus/", createdID: "gpu.created", updatedID: "gpu.updated",
		render: func(status int, lock int, conflict bool) error {
			f.LockVersion, f.Conflict = lock, conflict
			f.Page = s.Page(c, f.TitleID())
			return s.Render(c, status, f.Page, web.GPUFormPage(f))
		},
	})
}

func (s *Handlers) GPUCreate(c echo.Context) error { return s.gpuSave(c, 0) }

func (s *Handlers) GPUUpdate(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	return s.gpuSave(c, id)
}
