// Package money holds the money rules shared by the engine and the edges:
// ISO 4217 currency codes, strict decimal parsing from strings, ledger
// rounding and display formatting. Money is shopspring decimal.Decimal from
// strings end to end; nothing here ever goes through float64.
package money

// Currency is one active ISO 4217 alphabetic code with its minor units.
type Currency struct {
	// Code is the three-letter alphabetic code, upper case.
	Code string
	// MinorUnits is the number of decimal places of the minor unit, or -1
	// where ISO 4217 says "N.A." (precious metals, SDR, test and bond-market
	// units): such codes are valid ISO 4217 but are not money a vendor quotes in.
	MinorUnits int
}

// Priceable reports whether a price can be quoted in c: it must have minor
// units (so XAU, XDR, XTS, XXX and the like are rejected as quote currencies).
func (c Currency) Priceable() bool { return c.MinorUnits >= 0 }

// LookupCurrency returns the active ISO 4217 currency with the given code.
// The code must be exactly three upper-case letters; "eur" is not accepted.
func LookupCurrency(code string) (Currency, bool) {
	mu, ok := iso4217[code]
	if !ok {
		return Currency{}, false
	}
	return Currency{Code: code, MinorUnits: mu}, true
}

// IsCurrency reports whether code is an active ISO 4217 code in which a price
// can be quoted (see Currency.Priceable).
func IsCurrency(code string) bool {
	mu, ok := iso4217[code]
	return ok && mu >= 0
}

// Currencies returns every active ISO 4217 code in the table, in no
// particular order; the caller sorts if it needs to.
func Currencies() []Currency {
	out := make([]Currency, 0, len(iso4217))
	for code, mu := range iso4217 {
		out = append(out, Currency{Code: code, MinorUnits: mu})
	}
	return out
}

// iso4217 is the list of active ISO 4217 alphabetic codes (list one,
// amendments through 2025) with their minor units; -1 marks "N.A.".
// Withdrawn codes (HRK, SLL, ZWL, ANG, MRO, STD, VEF, …) are not here.
// BGN stays while quotes dated before Bulgaria's 2026 euro changeover are
// still on file; remove it when the list drops it.
var iso4217 = map[string]int{
	"AED": 2, "AFN": 2, "ALL": 2, "AMD": 2, "AOA": 2, "ARS": 2, "AUD": 2,
	"AWG": 2, "AZN": 2, "BAM": 2, "BBD": 2, "BDT": 2, "BGN": 2, "BHD": 3,
	"BIF": 0, "BMD": 2, "BND": 2, "BOB": 2, "BOV": 2, "BRL": 2, "BSD": 2,
	"BTN": 2, "BWP": 2, "BYN": 2, "BZD": 2, "CAD": 2, "CDF": 2, "CHE": 2,
	"CHF": 2, "CHW": 2, "CLF": 4, "CLP": 0, "CNY": 2, "COP": 2, "COU": 2,
	"CRC": 2, "CUC": 2, "CUP": 2, "CVE": 2, "CZK": 2, "DJF": 0, "DKK": 2,
	"DOP": 2, "DZD": 2, "EGP": 2, "ERN": 2, "ETB": 2, "EUR": 2, "FJD": 2,
	"FKP": 2, "GBP": 2, "GEL": 2, "GHS": 2, "GIP": 2, "GMD": 2, "GNF": 0,
	"GTQ": 2, "GYD": 2, "HKD": 2, "HNL": 2, "HTG": 2, "HUF": 2, "IDR": 2,
	"ILS": 2, "INR": 2, "IQD": 3, "IRR": 2, "ISK": 0, "JMD": 2, "JOD": 3,
	"JPY": 0, "KES": 2, "KGS": 2, "KHR": 2, "KMF": 0, "KPW": 2, "KRW": 0,
	"KWD": 3, "KYD": 2, "KZT": 2, "LAK": 2, "LBP": 2, "LKR": 2, "LRD": 2,
	"LSL": 2, "LYD": 3, "MAD": 2, "MDL": 2, "MGA": 2, "MKD": 2, "MMK": 2,
	"MNT": 2, "MOP": 2, "MRU": 2, "MUR": 2, "MVR": 2, "MWK": 2, "MXN": 2,
	"MXV": 2, "MYR": 2, "MZN": 2, "NAD": 2, "NGN": 2, "NIO": 2, "NOK": 2,
	"NPR": 2, "NZD": 2, "OMR": 3, "PAB": 2, "PEN": 2, "PGK": 2, "PHP": 2,
	"PKR": 2, "PLN": 2, "PYG": 0, "QAR": 2, "RON": 2, "RSD": 2, "RUB": 2,
	"RWF": 0, "SAR": 2, "SBD": 2, "SCR": 2, "SDG": 2, "SEK": 2, "SGD": 2,
	"SHP": 2, "SLE": 2, "SOS": 2, "SRD": 2, "SSP": 2, "STN": 2, "SVC": 2,
	"SYP": 2, "SZL": 2, "THB": 2, "TJS": 2, "TMT": 2, "TND": 3, "TOP": 2,
	"TRY": 2, "TTD": 2, "TWD": 2, "TZS": 2, "UAH": 2, "UGX": 0, "USD": 2,
	"USN": 2, "UYI": 0, "UYU": 2, "UYW": 4, "UZS": 2, "VED": 2, "VES": 2,
	"VND": 0, "VUV": 0, "WST": 2, "XAF": 0, "XCD": 2, "XCG": 2, "XOF": 0,
	"XPF": 0, "YER": 2, "ZAR": 2, "ZMW": 2, "ZWG": 2,
	// Codes without minor units: valid ISO 4217, never a quote currency.
	"XAG": -1, "XAU": -1, "XBA": -1, "XBB": -1, "XBC": -1, "XBD": -1,
	"XDR": -1, "XPD": -1, "XPT": -1, "XSU": -1, "XTS": -1, "XUA": -1,
	"XXX": -1,
}
