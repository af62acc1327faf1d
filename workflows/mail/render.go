package mail

import (
	"bytes"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"net/url"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/labels"
)

// item is one deadline as a mail shows it.
type item struct {
	Number, Kind, What, LegalBasis, DueLocal, Link, State string
	due                                                   time.Time
	workingDaysLeft                                       int
	Left                                                  string
}

// lang holds a language's words.
type lang struct {
	code                                          string
	overdueSubject, dueSoonSubject, actionSubject func(item) string
	overdueIntro, dueSoonIntro, actionIntro       string
	digestIntro                                   string
	digestSubject                                 func(local time.Time, n int) string
	confirmSubject, webhookSubject                func(item) string
	confirmBody                                   func(link string) string
	webhookBody                                   func(payload string) string
	labels                                        map[string]string
	what                                          map[string]string
	left                                          func(days int, overdue bool) string
	footer                                        string
	dateLayout                                    string
}

var english = &lang{
	code:           "en",
	overdueSubject: func(i item) string { return fmt.Sprintf("Overdue: %s, %s", i.What, i.Number) },
	dueSoonSubject: func(i item) string { return fmt.Sprintf("Due %s: %s, %s", i.DueLocal, i.What, i.Number) },
	actionSubject:  func(i item) string { return fmt.Sprintf("Waiting for your organisation: %s, %s", i.What, i.Number) },
	overdueIntro:   "A time limit your organisation must meet has passed.",
	dueSoonIntro:   "A time limit your organisation must meet falls due soon.",
	actionIntro:    "A document waits for your organisation's action.",
	digestIntro:    "The time limits your organisation must meet, the earliest first.",
	digestSubject: func(local time.Time, n int) string {
		return fmt.Sprintf("wasteflow digest %s: %d open time limit(s)", local.Format("2 Jan 2006"), n)
	},
	confirmSubject: func(item) string { return "Confirm your address for wasteflow reminders" },
	webhookSubject: func(item) string { return "A webhook endpoint of your organisation was disabled" },
	confirmBody: func(link string) string {
		return "Someone (we hope you) asked wasteflow to send deadline reminders to this address.\n\nConfirm it here: " + link +
			"\n\nUntil you do, no reminder is sent. If it was not you, ignore this mail."
	},
	webhookBody: func(payload string) string {
		return "Every delivery to one of your organisation's webhook endpoints failed for days, so it was disabled: " + payload +
			"\n\nEvents wait meanwhile. Fix the receiver, then enable the endpoint again (WebhookApi/UpdateWebhookEndpoint, \"enabled\": true)."
	},
	labels: map[string]string{"document": "Document", "kind": "Kind", "due": "Due by", "basis": "Legal basis", "open": "Open in the console", "state": "State", "left": "Left"},
	what: map[string]string{
		"ACKNOWLEDGEMENT_DUE": "acknowledge the notification", "INFORMATION_REPLY_DUE": "answer with the requested information",
		"DECISION_DUE": "decide on the notification", "CHANGE_REPLY_DUE": "answer the change of the notification",
		"CONSENT_VALIDITY": "ship within the consent's validity", "RECEIPT_CERTIFICATE_DUE": "certify the receipt of the waste",
		"COMPLETION_CERTIFICATE_DUE": "certify the completion of recovery or disposal", "TAKE_BACK_DUE": "take the waste back",
		"REPORT_DUE": "report",
	},
	left: func(days int, overdue bool) string {
		switch {
		case overdue:
			return "overdue"
		case days == 0:
			return "today"
		case days == 1:
			return "1 working day"
		}
		return fmt.Sprintf("%d working days", days)
	},
	footer:     "You get this mail because you chose it in wasteflow's mail preferences. Unsubscribe with one click: ",
	dateLayout: "Mon 2 Jan 2006, 15:04 MST",
}

var german = &lang{
	code:           "de",
	overdueSubject: func(i item) string { return fmt.Sprintf("Frist abgelaufen: %s, %s", i.What, i.Number) },
	dueSoonSubject: func(i item) string { return fmt.Sprintf("Fällig %s: %s, %s", i.DueLocal, i.What, i.Number) },
	actionSubject:  func(i item) string { return fmt.Sprintf("Ihre Organisation ist am Zug: %s, %s", i.What, i.Number) },
	overdueIntro:   "Eine Frist, die Ihre Organisation einhalten muss, ist abgelaufen.",
	dueSoonIntro:   "Eine Frist, die Ihre Organisation einhalten muss, läuft bald ab.",
	actionIntro:    "Ein Dokument wartet auf eine Handlung Ihrer Organisation.",
	digestIntro:    "Die Fristen, die Ihre Organisation einhalten muss, die früheste zuerst.",
	digestSubject: func(local time.Time, n int) string {
		return fmt.Sprintf("wasteflow-Übersicht %s: %d offene Frist(en)", local.Format("02.01.2006"), n)
	},
	confirmSubject: func(item) string { return "Bestätigen Sie Ihre Adresse für wasteflow-Erinnerungen" },
	webhookSubject: func(item) string { return "Ein Webhook-Endpunkt Ihrer Organisation wurde deaktiviert" },
	confirmBody: func(link string) string {
		return "Jemand (hoffentlich Sie) hat wasteflow gebeten, Fristerinnerungen an diese Adresse zu senden.\n\nBestätigen Sie sie hier: " + link +
			"\n\nBis dahin wird keine Erinnerung gesendet. Waren Sie es nicht, ignorieren Sie diese Mail."
	},
	webhookBody: func(payload string) string {
		return "Jede Zustellung an einen Webhook-Endpunkt Ihrer Organisation ist seit Tagen fehlgeschlagen; er wurde deaktiviert: " + payload +
			"\n\nEreignisse warten solange. Beheben Sie den Empfänger und aktivieren Sie den Endpunkt wieder (WebhookApi/UpdateWebhookEndpoint, \"enabled\": true)."
	},
	labels: map[string]string{"document": "Dokument", "kind": "Art", "due": "Fällig bis", "basis": "Rechtsgrundlage", "open": "In der Konsole öffnen", "state": "Stand", "left": "Verbleibend"},
	what: map[string]string{
		"ACKNOWLEDGEMENT_DUE": "Eingangsbestätigung der Notifizierung", "INFORMATION_REPLY_DUE": "Antwort mit den angeforderten Informationen",
		"DECISION_DUE": "Entscheidung über die Notifizierung", "CHANGE_REPLY_DUE": "Antwort auf die Änderung der Notifizierung",
		"CONSENT_VALIDITY": "Verbringung innerhalb der Geltungsdauer der Zustimmung", "RECEIPT_CERTIFICATE_DUE": "Bescheinigung des Eingangs der Abfälle",
		"COMPLETION_CERTIFICATE_DUE": "Bescheinigung des Abschlusses der Verwertung oder Beseitigung", "TAKE_BACK_DUE": "Rücknahme der Abfälle",
		"REPORT_DUE": "Bericht",
	},
	left: func(days int, overdue bool) string {
		switch {
		case overdue:
			return "abgelaufen"
		case days == 0:
			return "heute"
		case days == 1:
			return "1 Arbeitstag"
		}
		return fmt.Sprintf("%d Arbeitstage", days)
	},
	footer:     "Sie erhalten diese Mail, weil Sie sie in den Mail-Einstellungen von wasteflow gewählt haben. Mit einem Klick abbestellen: ",
	dateLayout: "02.01.2006, 15:04 MST",
}

func texts(code string) *lang {
	if code == "de" {
		return german
	}
	return english
}

// whatIsDue says what a deadline rule asks for, as a task ("acknowledge
// the notification"); a rule without a task of its own is named by its
// label (rules/labels, declared with the kind), never by its code.
func (t *lang) whatIsDue(rule string) string {
	if v, ok := t.what[rule]; ok {
		return v
	}
	return labels.Label(labels.ListDeadlineRule, rule, t.code)
}

// item shows deadline d, due in the acting party's zone (the account's
// organisation is that party).
func (s *Service) item(d *models.MailDeadline, loc *time.Location, place calendar.Place, now time.Time, t *lang) item {
	overdue := d.State == "OVERDUE" || !now.Before(d.DueAt)
	days := 0
	if !overdue {
		days = calendar.WorkingDaysBetween(place, now, d.DueAt)
	}
	return item{Number: d.Number, Kind: labels.Label(labels.ListDocumentKind, d.Kind, t.code), What: t.whatIsDue(d.Rule), LegalBasis: d.LegalBasis,
		DueLocal: d.DueAt.In(loc).Format(t.dateLayout), Link: s.BaseURL + "/ui#/doc/" + url.PathEscape(d.DocumentID),
		State: d.State, due: d.DueAt, workingDaysLeft: days, Left: t.left(days, overdue)}
}

// rendered is a mail's subject and bodies.
type rendered struct{ subject, text, html string }

var textMail = texttemplate.Must(texttemplate.New("text").Parse(`{{.Intro}}
{{range .Items}}
{{$.L.document}}: {{.Number}} ({{.Kind}})
{{$.What}}: {{.What}}
{{$.L.due}}: {{.DueLocal}} ({{.Left}})
{{$.L.basis}}: {{.LegalBasis}}
{{$.L.open}}: {{.Link}}
{{end}}
--
{{.Footer}}{{.Unsubscribe}}
`))

var htmlMail = htmltemplate.Must(htmltemplate.New("html").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Subject}}</title></head>
<body style="font-family: sans-serif; color: #1a1a1a">
<p>{{.Intro}}</p>
<table style="border-collapse: collapse" cellpadding="6">
<tr style="text-align: left; border-bottom: 1px solid #999"><th>{{.L.document}}</th><th>{{.What}}</th><th>{{.L.due}}</th><th>{{.L.left}}</th><th>{{.L.basis}}</th></tr>
{{range .Items}}<tr style="border-bottom: 1px solid #ddd"><td><a href="{{.Link}}">{{.Number}}</a><br><small>{{.Kind}}</small></td><td>{{.What}}</td><td>{{.DueLocal}}</td><td>{{.Left}}</td><td>{{.LegalBasis}}</td></tr>
{{end}}</table>
<p style="color: #555; font-size: small">{{.Footer}}<a href="{{.Unsubscribe}}">{{.Unsubscribe}}</a></p>
</body></html>
`))

var htmlNotice = htmltemplate.Must(htmltemplate.New("notice").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Subject}}</title></head>
<body style="font-family: sans-serif; color: #1a1a1a">
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}</body></html>
`))

func (s *Service) render(p *models.MailPreference, t *lang, subject func(item) string, intro string, items []item) rendered {
	return s.renderItems(p, t, subject(items[0]), intro, items)
}

func (s *Service) renderItems(p *models.MailPreference, t *lang, subject, intro string, items []item) rendered {
	what := map[string]string{"en": "What is due", "de": "Was fällig ist"}[t.code]
	data := map[string]any{"Intro": intro, "Items": items, "L": t.labels, "What": what, "Footer": t.footer,
		"Unsubscribe": s.UnsubscribeURL(p), "Lang": t.code, "Subject": subject}
	var tb, hb bytes.Buffer
	_ = textMail.Execute(&tb, data)
	_ = htmlMail.Execute(&hb, data)
	return rendered{subject: subject, text: tb.String(), html: hb.String()}
}

func (s *Service) renderNotice(p *models.MailPreference, t *lang, subject func(item) string, body string) rendered {
	sub := subject(item{})
	var hb bytes.Buffer
	_ = htmlNotice.Execute(&hb, map[string]any{"Lang": t.code, "Subject": sub, "Paragraphs": strings.Split(body, "\n\n")})
	return rendered{subject: sub, text: body + "\n", html: hb.String()}
}

// payloadText renders an event's payload for a notice.
func payloadText(payload string) string {
	var m map[string]any
	if json.Unmarshal([]byte(payload), &m) != nil {
		return payload
	}
	return fmt.Sprintf("%v (%v): %v", m["url"], m["endpointId"], m["reason"])
}
