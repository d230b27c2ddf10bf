package pages

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// Notifications inside the application (docs/RULES.md §18.4): a reader
// only ever lists, opens and marks their own; another user's id answers
// 404 like one that does not exist.

const notificationsPerPage = 20

// NotificationList is GET /notifications: the reader's notices, newest
// first, worded in their language.
func (s *Handlers) NotificationList(c echo.Context) error {
	in := web.NotificationsRecords{Page: server.PageParam(c), PerPage: notificationsPerPage}
	var err error
	if in.Items, in.Total, in.Unread, err = s.Store.Notifications(c.Request().Context(), auth.CurrentUser(c).UserID,
		(in.Page-1)*notificationsPerPage, notificationsPerPage); err != nil {
		return err
	}
	v := web.NewNotificationsView(server.Translator(c), in)
	v.Page = s.Page(c, "notify.list.title")
	return s.Render(c, http.StatusOK, v.Page, web.Notifications(v))
}

// NotificationOpen is POST /notifications/:id/open: marks the notice read
// and goes to its report or quote.
func (s *Handlers) NotificationOpen(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	it, err := s.Store.OpenNotification(c.Request().Context(), auth.CurrentUser(c).UserID, id, s.Now())
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, it.Path())
}

// NotificationsReadAll is POST /notifications/read-all.
func (s *Handlers) NotificationsReadAll(c echo.Context) error {
	n, err := s.Store.ReadAllNotifications(c.Request().Context(), auth.CurrentUser(c).UserID, s.Now())
	if err != nil {
		return err
	}
	msg := "notify.read_all.done"
	if n == 0 {
		msg = "notify.read_all.none"
	}
	return s.RedirectWithFlash(c, "/notifications", "ok", msg)
}

// MailQueuePage is GET /admin/mail: the mail not sent yet or given up.
func (s *Handlers) MailQueuePage(c echo.Context) error {
	rows, err := s.Store.MailQueue(c.Request().Context(), true, 200)
	if err != nil {
		return err
	}
	v := web.NewMailQueueView(rows)
	v.Page = s.Page(c, "notify.admin.title")
	return s.Render(c, http.StatusOK, v.Page, web.MailQueue(v))
}
