package api

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/apierror"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/trial"
	"gpuquote/internal/verify"
	"gpuquote/internal/verifyapi"
)

// VerifyNvidiaSMI is POST /api/v1/verify/nvidia-smi?gpu_model=…: it reads
// nvidia-smi output (the raw text/plain body, or the form field text) and
// returns every sample and the trial checks against the ordered card,
// reasons in the request's language. It stores nothing. 422 names an
// unknown gpu_model and a parse error's line, both at once.
func (s *Handlers) VerifyNvidiaSMI(c echo.Context) error {
	tr := server.Translator(c)
	c.Response().Header().Set("Cache-Control", "no-store")
	text, err := verifyText(c)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	var errs []apierror.Error
	ref := strings.TrimSpace(c.QueryParam("gpu_model"))
	g, err := s.gpuModelByRef(c.Request().Context(), ref)
	switch {
	case ref == "":
		errs = append(errs, apierror.Error{Field: "gpu_model", Code: "apiverify.gpu_model.missing", Message: tr.T("apiverify.gpu_model.missing")})
	case errors.Is(err, store.ErrNotFound):
		errs = append(errs, apierror.Error{Field: "gpu_model", Code: "apiverify.gpu_model.unknown",
			Message: tr.T("apiverify.gpu_model.unknown", "Model", shorten(ref, 100))})
	case err != nil:
		return err
	}
	report, err := verify.Parse(text)
	var pe *verify.ParseError
	if errors.As(err, &pe) {
		errs = append(errs, verifyapi.ParseError(pe, tr.TMap))
	} else if err != nil {
		return err
	}
	if len(errs) > 0 {
		return server.APIErrors(c, http.StatusUnprocessableEntity, errs)
	}
	return c.JSON(http.StatusOK, verifyapi.NewResponse(report, g, verify.Evaluate(report, trial.VerifySpec(g)), tr.TMap))
}

// verifyText is the pasted text: the form field text of a form post, the
// whole body otherwise.
func verifyText(c echo.Context) (string, error) {
	ct, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if ct == echo.MIMEApplicationForm || ct == echo.MIMEMultipartForm {
		return c.FormValue("text"), nil
	}
	b, err := io.ReadAll(c.Request().Body)
	return string(b), err
}

// gpuModelByRef finds the ordered card by catalog id or by name ("Vendor
// Name" or the bare name, case-insensitively).
func (s *Handlers) gpuModelByRef(ctx context.Context, ref string) (market.GPUModel, error) {
	if ref == "" || len(ref) > 300 {
		return market.GPUModel{}, store.ErrNotFound
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil && id > 0 {
		g, err := s.Store.GPUModelByID(ctx, id)
		if !errors.Is(err, store.ErrNotFound) {
			return g, err
		}
	}
	return s.Store.GPUModelByName(ctx, ref)
}

// shorten cuts s to at most n characters for an error message.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
