package quote

import (
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/tco"
)

// Engine is the TCO engine's view of the quote. The VRAM per GPU is the
// quote's, else the GPU model's (so the VRAM floor always applies); a line
// whose "included" or "not applicable" answer is not in writing goes in
// as unconfirmed (Line.CountsAsUnconfirmed).
func (q Quote) Engine(gpu market.GPUModel) tco.Quote {
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
