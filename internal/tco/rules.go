package tco

import (
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// RulesVersion names this edition of the engine's rules; a saved report records it next to its figures.
const RulesVersion = "2027.1"

// Constants of the rules (docs/RULES.md §1.2, §6.3), as decimals (never floats).
var (
	// HoursPerMonth is a full month of continuous running: 365 × 24 ÷ 12 = 730.
	HoursPerMonth = decimal.New(730, 0)
	// HoursPerDay converts per_day prices: a month is 730 ÷ 24 days.
	HoursPerDay = decimal.New(24, 0)
	// MonthsPerYear converts the horizon into years for yearly billing.
	MonthsPerYear = decimal.New(12, 0)
	// DefaultSpotOverhead is the rework overhead of spot when none is given (10 %).
	DefaultSpotOverhead = decimal.New(10, -2)
	// StaleAfterDays is the age past which a quote is flagged quote_stale_90d.
	StaleAfterDays = 90
	// EarlyTerminationFlagPct is the penalty from which
	// early_termination_ge_20pct is raised.
	EarlyTerminationFlagPct = decimal.New(20, 0)
)

var (
	one            = decimal.New(1, 0)
	sixty          = decimal.New(60, 0)
	three          = decimal.New(3, 0)
	minutesInMonth = decimal.New(730*60, 0)
	secondsPerHour = decimal.New(3600, 0)
	million        = decimal.New(1, 6)
)

// DaysBetween returns the whole calendar days from from to to, each taken
// as the date it shows in its own location; negative when to is earlier.
func DaysBetween(from, to time.Time) int {
	f := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC)
	t := time.Date(to.Year(), to.Month(), to.Day(), 0, 0, 0, 0, time.UTC)
	return int(t.Sub(f) / (24 * time.Hour))
}

// VRAM floor rule of thumb (docs/RULES.md §6.4: "VRAM floor first"). It is an
// estimate for eligibility, not a sizing tool; editors may override it per
// evaluation with Options.VRAMFloorGB.
//
//	floor GB = params (billions) × bytes per parameter × overhead factor + 1 GB
//
// One billion parameters × one byte = 1 GB (10⁹ bytes); the fixed 1 GB is the
// CUDA context and framework. Bytes per parameter:
//   - full_training / full_finetune: Adam in mixed precision keeps weights
//     and gradients in 16-bit (2 + 2), an fp32 master copy (4) and two fp32
//     moments (8): 16 bytes. Pure fp32 is 4 + 4 + 8 = 16 as well. fp8 recipes
//     keep the fp32 master and moments but hold weights and gradients at
//     about one byte each: 14. Integer precisions cannot be trained in full.
//     Activations come on top: ×1.5 for training from scratch (long
//     sequences, large batches), ×1.2 for fine-tuning.
//   - lora: frozen weights at their precision (fp32 4, bf16/fp16 2, fp8 and
//     int8 1, int4 0.5) + 0.2 for adapters with their gradients and Adam
//     states (≈1 % of the parameters × 16 bytes, with slack); ×1.2.
//   - qlora: 4-bit weights (0.5) + quantisation constants and adapters
//     (0.1): 0.6; int4 only, that is what QLoRA is; ×1.2.
//   - inference: weights at their precision; ×1.2 for KV cache and
//     activations at modest concurrency and context length.
//   - rendering: parameters mean nothing; a fixed 16 GB floor, the memory a
//     production scene with its textures needs to stay in-core.
//
// Checks against docs/RULES.md §6.4: LoRA of 7B in bf16 needs 7 × 2.2 × 1.2 + 1 =
// 19.48 GB and fits a 24 GB card; full fine-tuning of 7B needs
// 7 × 16 × 1.2 + 1 = 135.4 GB and does not; QLoRA of 65B needs 47.8 GB and
// fits one 48 GB card, as the QLoRA paper reports.
//
// Training, fine-tuning and inference shard a model across the GPUs of one
// instance, so the quote's vram_gb × gpu_count is compared; a renderer keeps
// the whole scene on each GPU, so rendering compares vram_gb per GPU.
var (
	vramBaseGB      = decimal.New(1, 0)
	renderingGB     = decimal.New(16, 0)
	adapterBytes    = decimal.New(2, -1)
	qloraBytes      = decimal.New(6, -1)
	trainFactor     = decimal.New(15, -1)
	fineTuneFactor  = decimal.New(12, -1)
	fullStateBytes  = decimal.New(16, 0)
	fp8StateBytes   = decimal.New(14, 0)
	errUnknownTask  = errors.New("tco: unknown task")
	errUnknownPrec  = errors.New("tco: unknown precision")
	errPrecNotTask  = errors.New("tco: precision not usable for task")
	errParamsNeeded = errors.New("tco: params_billions must be > 0")
)

// Bytes per parameter of weights held at each precision.
var (
	fp32Bytes = decimal.New(4, 0)
	halfBytes = decimal.New(2, 0)
	byteBytes = decimal.New(1, 0)
	int4Bytes = decimal.New(5, -1)
)

// weightBytes is the bytes per parameter of weights held at a precision.
func weightBytes(p catalog.Precision) decimal.Decimal {
	switch p {
	case catalog.PrecisionFP32:
		return fp32Bytes
	case catalog.PrecisionBF16, catalog.PrecisionFP16:
		return halfBytes
	case catalog.PrecisionFP8, catalog.PrecisionINT8:
		return byteBytes
	case catalog.PrecisionINT4:
		return int4Bytes
	}
	return decimal.Decimal{}
}

// DefaultPrecision is the precision assumed when a profile names a task but
// no precision: bf16 (today's default for training and serving), int4 for
// QLoRA.
func DefaultPrecision(t catalog.Task) catalog.Precision {
	if t == catalog.TaskQLoRA {
		return catalog.PrecisionINT4
	}
	return catalog.PrecisionBF16
}

func precisionFits(t catalog.Task, p catalog.Precision) bool {
	switch t {
	case catalog.TaskFullTraining, catalog.TaskFullFinetune:
		return p == catalog.PrecisionFP32 || p == catalog.PrecisionBF16 || p == catalog.PrecisionFP16 || p == catalog.PrecisionFP8
	case catalog.TaskQLoRA:
		return p == catalog.PrecisionINT4
	case catalog.TaskLoRA, catalog.TaskInference, catalog.TaskRendering:
		return p.Valid()
	}
	return false
}

// VRAMFloor estimates the GPU memory in GB a task needs for a model of
// paramsBillions parameters at precision (empty: DefaultPrecision), by the
// rule of thumb documented above. Rendering ignores both and returns 16.
func VRAMFloor(task catalog.Task, paramsBillions decimal.Decimal, precision catalog.Precision) (decimal.Decimal, error) {
	if !task.Valid() {
		return decimal.Decimal{}, errUnknownTask
	}
	if task == catalog.TaskRendering {
		return renderingGB, nil
	}
	if precision == "" {
		precision = DefaultPrecision(task)
	}
	if !precision.Valid() {
		return decimal.Decimal{}, errUnknownPrec
	}
	if !precisionFits(task, precision) {
		return decimal.Decimal{}, errPrecNotTask
	}
	if paramsBillions.Sign() <= 0 {
		return decimal.Decimal{}, errParamsNeeded
	}
	var bytes, factor decimal.Decimal
	switch task {
	case catalog.TaskFullTraining, catalog.TaskFullFinetune:
		bytes = fullStateBytes
		if precision == catalog.PrecisionFP8 {
			bytes = fp8StateBytes
		}
		factor = fineTuneFactor
		if task == catalog.TaskFullTraining {
			factor = trainFactor
		}
	case catalog.TaskLoRA:
		bytes = money.Add(weightBytes(precision), adapterBytes)
		factor = fineTuneFactor
	case catalog.TaskQLoRA:
		bytes = qloraBytes
		factor = fineTuneFactor
	case catalog.TaskInference:
		bytes = weightBytes(precision)
		factor = fineTuneFactor
	}
	return money.MulAdd([]decimal.Decimal{paramsBillions, bytes, factor}, vramBaseGB), nil
}

// VRAMFloorPerGPU reports whether the task's floor applies to each GPU
// (rendering) rather than to the instance's total memory.
func VRAMFloorPerGPU(task catalog.Task) bool { return task == catalog.TaskRendering }

// StaleBefore is the first day a price sample may be dated and not be
// stale on today: one dated before it is more than StaleAfterDays old
// (the quote_stale_90d flag, docs/RULES.md §7.2). Every list, count and
// filter of stale samples cuts here.
func StaleBefore(today time.Time) time.Time { return today.AddDate(0, 0, -StaleAfterDays) }
