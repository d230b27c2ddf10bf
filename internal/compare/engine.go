// Package compare prices stored quotes for one usage profile: it turns a
// stored quote into the engine's input, decides which candidates the
// profile rules out (and says why), evaluates the rest in one report
// currency at dated rates, and marks the cheapest. It does no IO.
package compare

import (
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
)

// EngineQuote is the TCO engine's view of a stored quote. The VRAM per GPU
// is the quote's, else the GPU model's (so the VRAM floor always applies).
func EngineQuote(q store.Quote, gpu store.GPUModel) tco.Quote {
	vram := q.VRAMGB
	if !vram.Valid && gpu.VRAMGB.Sign() > 0 {
		vram = decimal.NewNullDecimal(gpu.VRAMGB)
	}
	out := tco.Quote{
		Currency: q.Currency, GPUModel: strings.TrimSpace(gpu.Vendor + " " + gpu.Name), GPUCount: q.GPUCount, VRAMGB: vram,
		Sharing: catalog.Sharing(q.Sharing), Hourly: q.Hourly, Monthly: q.Monthly, Yearly: q.Yearly,
		SpotHourly: q.SpotHourly, BillingGranularity: catalog.Granularity(q.BillingGranularity),
		IncludedMbps: q.IncludedMbps, IncludedSystemDiskGB: q.IncludedSystemDiskGB, IncludedDataDiskGB: q.IncludedDataDiskGB,
		CommitmentMonths: q.CommitmentMonths, EarlyTerminationPct: q.EarlyTerminationPct, Deposit: q.Deposit,
		DepositRefundable: q.DepositRefundable, BalanceWithdrawable: q.BalanceWithdrawable,
		PricesIncludeTax: q.PricesIncludeTax, AsOf: q.AsOf,
	}
	if !q.PricesIncludeTax || q.TaxRate.Sign() != 0 {
		out.TaxRate = decimal.NewNullDecimal(q.TaxRate)
	}
	for _, l := range q.Lines {
		el := tco.Line{Item: catalog.ItemKey(l.Item), Status: catalog.Status(l.Status), Unit: catalog.Unit(l.Unit),
			UnitPrice: l.UnitPrice, FreeAllowance: l.FreeAllowance, Note: l.Note}
		if l.CountsAsUnconfirmed() {
			el.Status, el.Unit, el.UnitPrice = catalog.StatusUnconfirmed, "", decimal.NullDecimal{}
		}
		out.Lines = append(out.Lines, el)
	}
	return out
}
