package tco

// OwnCrossingsConverted finds the crossing points of o beside q for
// profile p when each is converted into opts.ReportCurrency at the dated
// rate opts.Rates holds for its own currency, as a comparison prices its
// rows (docs/RULES.md §8.6): the rental and the option need not share a
// currency. opts.FXRate must not be set (one rate cannot convert two
// currencies). Invalid input returns a *ValidationError.
func OwnCrossingsConverted(q Quote, o Own, p Profile, opts Options) (Crossings, error) {
	opts.FXRate.Valid = false
	errs := append(Validate(q, p, opts), ValidateOwn(o, p, opts)...)
	if len(errs) > 0 {
		return Crossings{}, &ValidationError{Fields: errs}
	}
	return crossings(&q, &o, &p, &opts), nil
}
