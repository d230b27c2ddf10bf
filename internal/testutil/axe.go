package testutil

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axeSource is axe-core 4.10.3 (Deque Systems, MPL-2.0; licences beside
// it), vendored from npm by scripts/vendor-axe.sh. Only tests load it.
//
//go:embed axe/axe.min.js
var axeSource string

// AxeViolation is one rule axe-core finds broken on a page, at the impact
// it gives, with the selectors of the elements that break it.
type AxeViolation struct {
	Rule    string   `json:"rule"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
	// Colours are the failing colour pairs of a color-contrast violation.
	Colours []string `json:"colours"`
}

func (v AxeViolation) String() string {
	s := fmt.Sprintf("%s (%s: %s) on %d node(s): %s", v.Rule, v.Impact, v.Help, len(v.Targets), strings.Join(v.Targets, ", "))
	if len(v.Colours) > 0 {
		s += " [" + strings.Join(v.Colours, "; ") + "]"
	}
	return s
}

// InjectAxe makes every page the tab loads from now on carry axe-core, as
// a script the browser runs before the page's own (the page's
// Content-Security-Policy, which allows only the site's scripts, stays in
// force for everything else).
func InjectAxe(ctx context.Context) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: axeSource})
		return err
	}))
}

// axeRun runs axe-core on the document with the rules a default run
// applies (enabled, not experimental) whose impact is serious or critical,
// reporting violations only: collecting the nodes that pass costs as much
// again, and the minor and moderate rules are not what the tests bound.
const axeRun = `(async () => {
	const severe = new Set(['serious', 'critical']);
	const rules = axe._audit.rules.filter(r => r.enabled !== false && !r.tags.includes('experimental') && severe.has(r.impact)).map(r => r.id);
	const r = await axe.run(document, {runOnly: {type: 'rule', values: rules}, resultTypes: ['violations'], iframes: false, elementRef: false});
	return r.violations.filter(v => severe.has(v.impact)).map(v => ({
		rule: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(' ')),
		// color-contrast says which colours fail: "#6b7b76 on #f6f8f7 4.23 < 4.5".
		colours: [...new Set(v.nodes.flatMap(n => n.any.concat(n.all, n.none)).map(c => c.data).filter(d => d && d.fgColor).
			map(d => d.fgColor + ' on ' + d.bgColor + ' ' + d.contrastRatio + ' < ' + d.expectedContrastRatio.replace(':1', '')))]}));
})()`

// Axe runs axe-core (see InjectAxe) on the page the tab shows and returns
// its serious and critical violations.
func Axe(ctx context.Context) ([]AxeViolation, error) {
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]AxeViolation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("axe-core: %w", err)
	}
	return v, nil
}
