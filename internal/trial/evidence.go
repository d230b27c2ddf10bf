package trial

import (
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/verify"
)

// RecordsFromChecks turns the checks internal/verify made of pasted
// nvidia-smi output into results of the acceptance checks they evidence.
// Several verify checks may evidence one acceptance check (power, clock and
// throttle reasons all evidence check 11): one failing fails it, otherwise
// one passing passes it; when all say "unknown" the check is left as it
// is. The reasons recorded are those of the checks that decided it.
func RecordsFromChecks(checks []verify.Check) (recs []Record, failed int) {
	type acc struct {
		fail, pass []Reason
	}
	by := map[int]*acc{}
	for _, ch := range checks {
		if _, ok := Check(ch.TrialCheck); !ok {
			continue
		}
		a := by[ch.TrialCheck]
		if a == nil {
			a = &acc{}
			by[ch.TrialCheck] = a
		}
		r := Reason{MessageID: ch.MessageID, Args: ch.Args}
		switch ch.Outcome {
		case verify.OutcomeFail:
			a.fail = append(a.fail, r)
		case verify.OutcomePass:
			a.pass = append(a.pass, r)
		}
	}
	for _, ck := range catalog.TrialChecks {
		a := by[ck.Number]
		switch {
		case a == nil:
		case len(a.fail) > 0:
			recs = append(recs, Record{Check: ck.Number, State: Fail, Reasons: a.fail})
			failed++
		case len(a.pass) > 0:
			recs = append(recs, Record{Check: ck.Number, State: Pass, Reasons: a.pass})
		}
	}
	return recs, failed
}

// PasteOf is pasted output as a trial records it, with what verify read
// from it.
func PasteOf(output string, rep verify.Report, checks []verify.Check) *Paste {
	p := &Paste{Output: output, Format: string(rep.Format), Samples: len(rep.Samples)}
	for _, ch := range checks {
		p.Checks = append(p.Checks, PasteCheck{Key: ch.Key, TrialCheck: ch.TrialCheck,
			Outcome: string(ch.Outcome), MessageID: ch.MessageID, Args: ch.Args})
	}
	return p
}

// Measured is a measured TFLOPS figure as a trial records it: judged by the
// 85 % rule against the catalog's figure for the precision (verify.Performance:
// the reference measured figure where there is one, else the nominal one),
// with that figure and both ratios. The ratios are computed here from the
// exact figures (the verdict's are rounded to 4 places for reading); the
// store cuts them to RatioPlaces, so "below 85 %" is the same for the
// comparison's engine as for the verdict.
func Measured(trialID int64, perf market.GPUPerf, measured decimal.Decimal, benchmark, note string) (Perf, verify.PerfVerdict) {
	v := verify.Performance(measured, perf.NominalTFLOPS, perf.MeasuredTFLOPS)
	return Perf{TrialID: trialID, Precision: perf.Precision, MeasuredTFLOPS: measured, Benchmark: benchmark,
		NominalTFLOPS: perf.NominalTFLOPS, Sparse: perf.Sparse, ReferenceTFLOPS: perf.MeasuredTFLOPS,
		Basis: v.Basis, BasisTFLOPS: v.BasisTFLOPS, Ratio: measured.DivRound(v.BasisTFLOPS, 20),
		RatioToNominal: measured.DivRound(perf.NominalTFLOPS, 20), ThresholdTFLOPS: v.Threshold, Below: v.Below,
		Message: Reason{MessageID: v.MessageID, Args: v.Args}, Note: note}, v
}

// VerifySpec is the catalog's figures for the ordered card, as the checks
// read them; its name is "Vendor Name", as nvidia-smi names cards.
func VerifySpec(g market.GPUModel) verify.Spec {
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return verify.Spec{Name: strings.TrimSpace(g.Vendor + " " + g.Name), VRAMGB: g.VRAMGB, TDPW: n(g.TDPW),
		BoostClockMHz: n(g.BoostClockMHz), LoadPowerMinW: n(g.LoadPowerMinW), LoadPowerMaxW: n(g.LoadPowerMaxW),
		LoadClockMinMHz: n(g.LoadClockMinMHz), LoadClockMaxMHz: n(g.LoadClockMaxMHz)}
}
