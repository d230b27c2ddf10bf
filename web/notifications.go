package web

import (
	"time"

	"gpuquote/internal/i18n"
	"gpuquote/internal/notify"
)

// NotificationsView is the reader's notifications page (docs/RULES.md
// §18.4).
type NotificationsView struct {
	Page   Page
	Rows   []NotificationRow
	Total  int
	Unread int
	Pager  Pager
}

// NotificationRow is one notice, worded in the reader's language.
type NotificationRow struct {
	ID      int64
	Unread  bool
	Text    string
	Label   string
	Comment string
	When    string
	Href    string
}

// NewNotificationRow words a notice for tr's reader.
func NewNotificationRow(tr *i18n.Translator, it notify.Item) NotificationRow {
	return NotificationRow{ID: it.ID, Unread: it.ReadAt == nil, Text: notify.Sentence(tr, it), Label: notify.Label(tr, it),
		Comment: it.Comment, When: ReportTime(tr, it.CreatedAt), Href: it.Path()}
}

// MailQueueView is the admin's list of mail not sent.
type MailQueueView struct {
	Page Page
	Rows []MailQueueRow
}

// MailQueueRow is one queued or given-up mail.
type MailQueueRow struct {
	ID          int64
	Recipient   string
	Subject     string
	Attempts    int
	Queued      time.Time
	NextAttempt time.Time
	Failed      bool
	LastError   string
}

// NewMailQueueView builds the admin's list of mail not sent yet or given
// up.
func NewMailQueueView(mails []notify.QueuedMail) MailQueueView {
	var v MailQueueView
	for _, m := range mails {
		v.Rows = append(v.Rows, MailQueueRow{ID: m.ID, Recipient: m.Recipient, Subject: m.Subject, Attempts: m.Attempts,
			Queued: m.CreatedAt, NextAttempt: m.NextAttemptAt, Failed: m.FailedAt != nil, LastError: m.LastError})
	}
	return v
}

// NotificationsRecords is one page of the reader's notices, with how many
// they have and how many are unread.
type NotificationsRecords struct {
	Items                []notify.Item
	Page, PerPage, Total int
	Unread               int
}

// NewNotificationsView builds the reader's notifications page, each
// notice worded in their language.
func NewNotificationsView(tr *i18n.Translator, in NotificationsRecords) NotificationsView {
	v := NotificationsView{Total: in.Total, Unread: in.Unread,
		Pager: Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: "/notifications"}}
	for _, it := range in.Items {
		v.Rows = append(v.Rows, NewNotificationRow(tr, it))
	}
	return v
}
