package webhook

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Message is what a chat bot says of an event, in Chinese (docs/RULES.md
// §24.8): a title and a few lines of Markdown (WeCom, DingTalk) or the
// same lines as plain text (Feishu).
type Message struct {
	Title string
	Lines []string
	// URL, when known, is the page the message is about.
	URL string
}

// Markdown is the message as the Markdown WeCom and DingTalk show.
func (m Message) Markdown() string {
	var b strings.Builder
	b.WriteString("### " + m.Title + "\n")
	for _, l := range m.Lines {
		b.WriteString("> " + l + "\n")
	}
	if m.URL != "" {
		b.WriteString("\n[查看详情](" + m.URL + ")\n")
	}
	return b.String()
}

// Text is the message as plain text, for Feishu.
func (m Message) Text() string {
	var b strings.Builder
	b.WriteString("【" + m.Title + "】\n")
	for _, l := range m.Lines {
		b.WriteString(l + "\n")
	}
	if m.URL != "" {
		b.WriteString("查看详情：" + m.URL + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func str(p *string) string {
	if p == nil {
		return "—"
	}
	return *p
}

// quoteLines are the lines that describe a quote version.
func quoteLines(q QuoteObject) []string {
	name := q.PlatformZH
	if name == "" {
		name = q.PlatformEN
	}
	gpu := q.GPU
	if q.GPUCount > 0 {
		gpu += " × " + strconv.Itoa(q.GPUCount)
	}
	lines := []string{"平台：" + name, "GPU：" + gpu}
	if q.Label != "" {
		lines = append(lines, "方案："+q.Label)
	}
	if q.Hourly != nil {
		lines = append(lines, "按小时："+*q.Hourly+" "+q.Currency+"/小时")
	}
	if q.Monthly != nil {
		lines = append(lines, "包月："+*q.Monthly+" "+q.Currency+"/月")
	}
	lines = append(lines, "报价日期："+q.AsOf+"（第 "+strconv.Itoa(q.Version)+" 版）")
	return lines
}

// ChatMessage words event type t with data.object raw for a chat bot.
func ChatMessage(t string, raw json.RawMessage) (Message, error) {
	switch t {
	case QuotePublished:
		var q QuoteObject
		if err := json.Unmarshal(raw, &q); err != nil {
			return Message{}, err
		}
		return Message{Title: "新报价已发布", Lines: quoteLines(q), URL: q.URL}, nil
	case QuotePriceJump:
		var q QuoteObject
		if err := json.Unmarshal(raw, &q); err != nil {
			return Message{}, err
		}
		lines := quoteLines(q)
		if q.HourlyJump {
			lines = append(lines, "按小时价格变动："+str(q.PrevHourly)+" → "+str(q.Hourly)+"（"+q.HourlyMove+"%）")
		}
		if q.MonthlyJump {
			lines = append(lines, "包月价格变动："+str(q.PrevMonthly)+" → "+str(q.Monthly)+"（"+q.MonthlyMove+"%）")
		}
		return Message{Title: "报价价格大幅变动", Lines: lines, URL: q.URL}, nil
	case WatchMatched:
		var w WatchObject
		if err := json.Unmarshal(raw, &w); err != nil {
			return Message{}, err
		}
		lines := []string{"关注：" + w.Watch.Name}
		if w.Reason != "" {
			lines = append(lines, "原因："+w.Reason)
		}
		lines = append(lines, quoteLines(w.Quote)...)
		u := w.URL
		if u == "" {
			u = w.Quote.URL
		}
		return Message{Title: "关注的报价有新情况", Lines: lines, URL: u}, nil
	case ReportApproved:
		var r ReportObject
		if err := json.Unmarshal(raw, &r); err != nil {
			return Message{}, err
		}
		lines := []string{"报告：" + r.Number + " " + r.Title, "审批人：" + r.ApprovedBy}
		if r.Comment != "" {
			lines = append(lines, "意见："+r.Comment)
		}
		return Message{Title: "采购报告已批准", Lines: lines, URL: r.URL}, nil
	case BillOvercharged:
		var b BillObject
		if err := json.Unmarshal(raw, &b); err != nil {
			return Message{}, err
		}
		lines := []string{"报告：" + b.ReportNumber, "平台：" + b.Platform, "账期：" + b.Month + "（第 " + strconv.Itoa(b.Revision) + " 版账单）",
			"账单金额：" + b.Billed + " " + b.Currency, "按报价应为：" + b.Expected + " " + b.Currency,
			"多收：" + b.Overcharge + " " + b.Currency}
		return Message{Title: "账单多收费用", Lines: lines, URL: b.URL}, nil
	}
	return Message{}, fmt.Errorf("webhook: no chat message for event type %q", t)
}

// ChatBody is the JSON a chat bot of kind receives for m; sec is the
// unix second of the attempt (Feishu signs it).
func ChatBody(kind, secret string, m Message, sec int64) ([]byte, error) {
	switch kind {
	case KindWeCom:
		return json.Marshal(map[string]any{"msgtype": "markdown", "markdown": map[string]string{"content": m.Markdown()}})
	case KindDingTalk:
		return json.Marshal(map[string]any{"msgtype": "markdown", "markdown": map[string]string{"title": m.Title, "text": m.Markdown()}})
	case KindFeishu:
		body := map[string]any{"msg_type": "text", "content": map[string]string{"text": m.Text()}}
		if secret != "" {
			body["timestamp"] = strconv.FormatInt(sec, 10)
			body["sign"] = FeishuSign(secret, sec)
		}
		return json.Marshal(body)
	}
	return nil, fmt.Errorf("webhook: %q is not a chat bot", kind)
}

// botAnswer checks a chat bot's answer: vendors answer HTTP 200 with an
// error code in the JSON body (WeCom and DingTalk errcode, Feishu code),
// and anything but 0 there, or no code at all, is a failure.
func botAnswer(kind string, body []byte) error {
	var a struct {
		ErrCode *int64 `json:"errcode"`
		ErrMsg  string `json:"errmsg"`
		Code    *int64 `json:"code"`
		Msg     string `json:"msg"`
		Status  *int64 `json:"StatusCode"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return fmt.Errorf("the bot's answer is not JSON")
	}
	code, msg, field := a.ErrCode, a.ErrMsg, "errcode"
	if kind == KindFeishu {
		code, msg, field = a.Code, a.Msg, "code"
		if code == nil {
			code = a.Status
		}
	}
	if code == nil {
		return fmt.Errorf("the bot's answer has no %s", field)
	}
	if *code != 0 {
		return fmt.Errorf("the bot refused: %s %d %s", field, *code, msg)
	}
	return nil
}
