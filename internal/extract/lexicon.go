package extract

import "sort"

// class is what a word of the lexicon tells the reader.
type class uint8

// The classes of the lexicon's words.
const (
	cNone class = iota
	// cMode names a billing mode; arg hourly, monthly, yearly, spot, sub
	// (包年包月: monthly or yearly, by the price's own period) or reserved
	// (a reserved price, which needs a term the form holds apart).
	cMode
	cDeposit
	// cPerGPU says the price after it is per GPU ("每卡每小时 ¥1.98").
	cPerGPU
	// cNoDeposit says there is no deposit ("免押金", "no deposit").
	cNoDeposit
	// cItem names one of the twelve hidden-cost items; arg its key.
	cItem
	// cBlock names something a price may be for that is not on the form
	// (support, setup, licences, credit, generic storage): a price next to
	// it is not placed.
	cBlock
	// cNeutral only covers shorter words inside it (合约 covers 约).
	cNeutral
	cFree
	cNotFree
	// cNo is the English "no" of "no egress fees".
	cNo
	cFee
	// cNA says a line cannot occur; arg its item.
	cNA
	cRelease
	cCond
	cFrom
	cFormer
	cApprox
	cApproxAfter
	cEquiv
	cContinue
	cFirst
	cMax
	cOneOff
	cCut
	// cGran is a billing granularity; arg second, minute or hour.
	cGran
	cCommitLabel
	cCommitSuffix
	cNoCommit
	cEarlyTerm
	cRefundable
	cNonRefundable
	cBalance
	cWithdrawable
	cNotWithdrawable
	cTaxIncl
	cTaxExcl
	// cInvoice is an invoice type; arg its form value.
	cInvoice
	cDiscount
	cSLA
	cRegion
	// cSharing is a sharing kind; arg its form value.
	cSharing
	// cPlatform is a platform's name; arg the name as the value gives it.
	cPlatform
	cCompare
	// cModel is a GPU model's name; arg the name as the value gives it.
	cModel
	cVRAM
	cRAM
	cCPU
	cGPUCount
	cBWFigure
	// cCurrency is a currency word standing alone; arg its ISO code.
	cCurrency
	cInfra
)

// word is one entry of the lexicon: its text in the folded form of the
// message (lower case, half-width); a space in it matches any run of
// spaces, none included.
type word struct {
	text string
	cls  class
	arg  string
}

// hit is a word found in the message, in rune offsets.
type hit struct {
	s, e int
	cls  class
	arg  string
}

func words(cls class, arg string, texts ...string) []word {
	out := make([]word, len(texts))
	for i, t := range texts {
		out[i] = word{t, cls, arg}
	}
	return out
}

// lexiconWords is every word the reader knows (docs/RULES.md §22.2).
func lexiconWords() []word {
	var w []word
	add := func(ws ...[]word) {
		for _, x := range ws {
			w = append(w, x...)
		}
	}
	add(
		// Billing modes.
		words(cMode, "hourly", "按量", "按量计费", "按量付费", "按需", "按需计费", "按时", "按时计费", "时租", "每小时", "小时价",
			"on-demand", "on demand", "ondemand", "pay-as-you-go", "pay as you go", "payg", "hourly", "per hour", "hourly rate", "hourly price"),
		words(cMode, "monthly", "包月", "月付", "月租", "每月", "月费", "monthly", "per month", "month-to-month", "monthly price",
			"monthly rate", "monthly reserved"),
		words(cMode, "yearly", "包年", "年付", "年租", "每年", "年费", "yearly", "annual", "annually", "per year", "1-year", "one-year",
			"1 year", "one year"),
		words(cMode, "spot", "竞价", "竞价实例", "抢占式", "抢占式实例", "抢占", "spot", "spot instance", "interruptible", "preemptible",
			"preempted", "min bid", "bid"),
		words(cMode, "sub", "包年包月"),
		words(cDeposit, "", "押金", "保证金", "deposit", "security deposit"),
		words(cNoDeposit, "", "不用押金", "无需押金", "不需要押金", "无押金", "免押金", "免押", "no deposit", "no deposit required",
			"deposit not required", "without deposit", "without a deposit"),
		words(cMode, "yearly", "2-year", "3-year", "two-year", "three-year", "2 year", "3 year", "两年", "三年"),
		words(cMode, "reserved", "reserved", "savings plan"),
		words(cMode, "yearly", "billed annually", "paid annually", "billed yearly", "paid yearly", "annual billing", "按年付费",
			"按年支付"),
		words(cPerGPU, "", "每卡", "每张卡", "单卡价格", "单卡单价", "单卡价", "per gpu", "per card", "each gpu"),

		// The twelve hidden-cost items (docs/RULES.md §3).
		words(cItem, "bandwidth", "带宽", "公网带宽", "带宽费", "固定带宽", "独享带宽", "共享带宽", "bandwidth"),
		words(cItem, "egress", "流量", "出网流量", "公网流量", "出网", "出流量", "外网流量", "出方向流量", "流量费", "egress",
			"outbound traffic", "outgoing traffic", "outbound data", "data transfer out", "data transfer", "traffic",
			"internet traffic", "internet egress", "network egress", "egress traffic"),
		words(cItem, "data_migration", "数据迁移", "数据迁入", "数据迁出", "迁入", "迁出", "数据导入", "数据导出", "入网流量",
			"入方向流量", "ingress", "data ingress", "data migration", "data import", "inbound traffic", "inbound data"),
		words(cItem, "public_ip", "公网 ip", "弹性公网 ip", "弹性 ip", "eip", "独立 ip", "固定 ip", "ip 地址", "ipv4", "ipv4 address",
			"public ip", "public ipv4", "public ipv4 address", "static ip", "static external ip", "elastic ip", "dedicated ip",
			"floating ip", "ip"),
		words(cItem, "system_disk", "系统盘", "系统盘扩容", "system disk", "boot disk", "root disk", "os disk", "container disk",
			"system volume", "root volume"),
		words(cItem, "data_disk", "数据盘", "数据硬盘", "数据盘扩容", "云硬盘", "data disk", "data volume", "persistent disk",
			"block storage", "block storage volume", "ebs"),
		words(cItem, "object_storage", "对象存储", "共享存储", "网盘", "文件存储", "共享盘", "nas", "object storage", "shared storage",
			"network volume", "network storage", "file storage"),
		words(cItem, "bundled_addon", "捆绑", "捆绑销售", "必选", "强制搭配", "搭配购买", "需搭配", "配套服务", "mandatory add-on",
			"required add-on", "bundled", "bundle"),
		words(cItem, "snapshot", "快照", "snapshot"),
		words(cItem, "image", "自定义镜像", "私有镜像", "实例镜像", "镜像存储", "镜像保存", "custom image", "private image", "image storage",
			"saved image"),
		words(cItem, "stopped_retention", "关机", "停机", "关机后", "关机保留", "关机保留费", "停机保留", "关机状态", "stopped",
			"stopped instance", "while stopped", "when stopped", "stopping an instance"),
		words(cItem, "start_stop_schedule", "启停", "开关机", "开机费", "启动费", "每次启动", "调度费", "启停费", "start fee",
			"per start", "instance start", "each start", "start/stop", "starting and stopping", "start and stop", "boot fee"),

		words(cBlock, "", "技术支持", "支持服务", "运维", "托管", "安装", "部署", "服务费", "管理费", "电费", "充值", "代金券", "优惠券",
			"赠送金", "许可", "授权", "软件", "存储", "硬盘", "磁盘", "备份", "域名", "证书", "咨询", "培训", "包周", "包天", "日租", "周租",
			"setup", "set-up", "installation", "support", "license", "licence", "management fee", "recharge", "top up", "top-up",
			"voucher", "coupon", "storage", "disk", "nvme", "ssd", "backup", "power", "colocation", "consulting", "domain",
			"流量包", "traffic package", "data package", "bandwidth package", "带宽包",
			"cpu instance", "cpu-only", "cpu server", "cpu 实例", "weekly", "daily", "per day", "per week"),
		words(cNeutral, "", "合约", "约定", "预约", "节约", "约束", "目前", "当前", "此前", "之前", "前面", "前述", "前往", "发送", "送达",
			"配送", "feel free", "billed monthly", "invoiced monthly", "paid monthly", "billing is monthly", "按月结算", "按月付款",
			"按小时结算", "结算", "月结", "monthly in advance", "total"),

		// Free, not free, not applicable.
		words(cFree, "", "免费", "免费提供", "免费赠送", "不收费", "不收", "不计费", "不另收费", "不额外收费", "不扣费", "包含", "已包含",
			"已含", "含在", "赠送", "送", "不限", "不限量", "不限速", "无限", "无限制", "free", "free of charge", "included", "include",
			"includes", "unmetered", "unlimited", "no charge", "no charges", "no extra charge", "not billed", "not charged",
			"at no cost", "at no charge", "on us", "is free", "are free", "for free", "without charge", "no fee", "no fees",
			"don't charge", "do not charge", "doesn't charge", "does not charge", "not charged for"),
		words(cNotFree, "", "不免费", "不包含", "不含", "非免费", "收费", "另收费", "另计", "照常计费", "正常计费", "照常收费", "仍收费",
			"仍计费", "not included", "not free", "excluded", "charged", "billed separately", "charged separately", "costs extra",
			"keep costing", "continue to be billed", "still billed", "still charged"),
		words(cNo, "", "no"),
		words(cFee, "", "收取", "扣除", "扣", "支付", "罚", "fee", "penalty", "charge", "pay", "forfeit", "cost"),
		words(cNA, "bundled_addon", "no mandatory add-on", "no required add-on", "no bundle", "no bundled", "无捆绑", "不捆绑",
			"无需捆绑", "无强制搭配", "无必选"),
		words(cNA, "stopped_retention", "no stopped state", "关机即释放", "关机即删除", "关机后释放实例", "关机即销毁",
			"cannot be stopped"),
		words(cRelease, "", "releases it", "is released", "are released", "即释放", "释放实例"),

		// What makes a price not the price.
		words(cCond, "", "首月", "首单", "首充", "新用户", "新客", "新人", "限时", "活动价", "活动期间", "优惠价", "促销", "特价", "秒杀",
			"如需", "若", "如果", "立减", "满减", "折后", "if", "when you", "for new", "new customer", "new user", "first month",
			"promo", "promotion", "promotional", "limited time", "limited-time", "with code", "or more", "and above", "or longer",
			"优惠期间", "优惠期", "活动", "个月以上", "月以上", "年以上", "个月及以上", "during the promotion",
			"时免费", "时不收费", "时不计费", "when attached", "while attached", "when in use", "while in use",
			"longer terms", "for longer", "commit to", "after discount", "discounted"),
		words(cFrom, "", "from", "starting at", "starting from", "start from", "as low as", "低至", "最低", "最低价", "起价", "起步价"),
		words(cFormer, "", "原价", "划线价", "市场价", "官网价", "标价", "was", "were", "list price", "regular price", "normally",
			"usually", "previously", "formerly"),
		words(cApprox, "", "约", "大约", "大概", "估计", "预计", "约为", "approx", "approx.", "approximately", "about", "around",
			"roughly", "circa", "estimated", "est."),
		words(cApproxAfter, "", "左右", "上下", "or so", "ish"),
		words(cEquiv, "", "相当于", "折合", "约合", "equivalent", "equivalent to", "works out to", "that is"),
		words(cContinue, "", "超出", "超出部分", "超过", "超过部分", "超出后", "之后", "额外", "多出", "另外", "beyond", "over", "above",
			"after", "additional", "extra", "thereafter", "overage", "excess"),
		words(cFirst, "", "前", "first"),
		words(cMax, "", "扩容至", "可扩容", "扩展至", "可扩展", "升级至", "可升级", "最大", "最高", "最多", "up to", "max", "maximum", "expandable", "upgradable",
			"upgrade to"),
		words(cOneOff, "", "一次性", "one-time", "one time", "one-off", "once"),
		words(cCut, "", "plus", "另", "另有", "另加", "以及", "and", "or", "或", "并且", "but", "但"),

		// Billing granularity (docs/RULES.md §4.1).
		words(cGran, "second", "按秒计费", "按秒计", "秒级计费", "按秒扣费", "精确到秒", "per-second billing", "per second billing",
			"billed per second", "billed by the second", "billing per second", "by the second", "billing: per second", "billing is per second"),
		words(cGran, "minute", "按分钟计费", "按分钟计", "按分钟扣费", "分钟级计费", "精确到分钟", "per-minute billing",
			"per minute billing", "billed per minute", "billed by the minute", "billing per minute", "by the minute",
			"billed to the minute", "billing: per minute", "billing is per minute"),
		words(cGran, "hour", "按小时计费", "按小时计", "小时级计费", "按小时扣费", "不足一小时按一小时", "不足 1 小时按 1 小时",
			"billed hourly", "hourly billing", "billed per hour", "billed by the hour", "per-hour billing", "billing per hour",
			"rounded up to the hour", "rounded up to the next hour", "partial hours", "billing: per hour", "billing is per hour"),

		// Contract terms.
		words(cCommitLabel, "", "最短租期", "最低租期", "最少租期", "最短租用期", "最低租用期", "最短租用", "起租期", "最短合同期",
			"合同期", "合同期限", "租期", "签约", "至少租", "至少租用", "至少签", "minimum term", "minimum commitment",
			"minimum contract", "minimum rental", "minimum period", "contract term", "term", "commitment of", "lock-in",
			"minimum contract period", "minimum rental period", "contract period", "minimum term period"),
		words(cCommitSuffix, "", "起租", "起签", "minimum", "minimum commitment", "minimum term", "commitment", "contract", "lock-in",
			"min", "合同"),
		words(cNoCommit, "", "no minimum commitment", "no minimum term", "no commitment", "no long-term commitment", "no minimum",
			"no contract", "no lock-in", "无最低租期", "无最短租期", "无需长期合约", "随租随退"),
		words(cEarlyTerm, "", "提前解约", "提前退租", "提前终止", "提前解除", "提前退订", "违约金", "early termination",
			"terminate early", "early cancellation", "cancel early", "termination fee", "break fee"),
		words(cRefundable, "", "退还", "返还", "退回", "可退", "可退还", "可以退", "可退款", "随时退", "refundable", "refunded",
			"returned", "refund"),
		words(cNonRefundable, "", "不退", "不予退还", "不可退", "不可退还", "概不退还", "不退还", "non-refundable", "nonrefundable",
			"not refundable", "no refund", "will not be refunded", "forfeited"),
		words(cBalance, "", "余额", "账户余额", "充值余额", "balance", "account balance", "credit", "prepaid balance", "unused credit"),
		words(cWithdrawable, "", "可提现", "提现", "随时提现", "支持提现", "can be withdrawn", "withdrawable", "withdraw", "withdrawn"),
		words(cNotWithdrawable, "", "不可提现", "不能提现", "不支持提现", "无法提现", "cannot be withdrawn", "can't be withdrawn",
			"not withdrawable", "non-withdrawable"),

		// Tax and invoices (docs/RULES.md §5.1).
		words(cTaxIncl, "", "含税", "价格含税", "已含税", "含增值税", "含税价", "tax included", "taxes included", "tax inclusive",
			"tax-inclusive", "inc. vat", "incl. vat", "incl vat", "including vat", "inclusive of vat", "vat included",
			"vat inclusive", "including tax", "incl. tax", "include all taxes", "include tax", "include vat",
			"inclusive of tax", "inclusive of taxes"),
		words(cTaxExcl, "", "不含税", "未税", "未含税", "税费另计", "税另计", "另加税", "不含增值税", "税前", "税前价", "ex. vat", "ex vat",
			"excl. vat", "excl vat", "excluding vat", "exclusive of vat", "exclusive of tax", "exclusive of applicable sales tax",
			"exclusive of applicable tax", "exclusive of sales tax", "excl. tax", "excluding tax", "exclude vat", "exclude tax",
			"exclude sales tax", "excluding sales tax", "exclude taxes", "exclude all taxes", "exclude applicable taxes",
			"tax-exclusive", "tax exclusive", "plus vat", "+ vat", "vat not included", "tax not included", "taxes not included",
			"before tax", "before vat", "net of vat", "plus applicable tax", "plus tax"),
		words(cInvoice, "vat_special", "专票", "增值税专票", "增值税专用发票", "专用发票"),
		words(cInvoice, "vat_general", "普票", "增值税普票", "增值税普通发票", "普通发票", "电子普票"),
		words(cInvoice, "none", "不开发票", "不提供发票", "无法开票", "不开票", "no invoice", "cannot issue invoices"),
		words(cInvoice, "commercial", "commercial invoice"),
		words(cDiscount, "", "discount", "off", "save", "savings", "reduce", "优惠", "折扣", "减免", "返现", "cashback"),
		words(cSLA, "", "sla", "可用性", "可用率", "服务可用性", "uptime", "availability", "uptime sla"),
		words(cRegion, "", "region", "location", "地域", "地区", "区域", "机房", "数据中心", "data center", "datacenter"),

		// Sharing (docs/RULES.md §2.2).
		words(cSharing, "dedicated", "独享整卡", "独占整卡", "整卡独享", "整卡独占", "独享整机", "独占整机", "独享 gpu", "独占 gpu",
			"gpu 独享", "gpu 独占", "显卡独享", "独享显卡", "独占显卡", "dedicated gpu", "dedicated gpu server", "dedicated server",
			"dedicated hgx server", "dedicated machine", "dedicated node", "bare metal", "bare-metal", "裸金属", "whole gpu",
			"full gpu"),
		words(cSharing, "shared", "共享 gpu", "共享显卡", "gpu 共享", "shared gpu", "共享算力"),
		words(cSharing, "vgpu", "vgpu", "gpu 切分", "切分卡"),

		words(cCompare, "", "比", "相比", "对比", "than", "compared", "vs", "vs.", "versus", "cheaper", "更便宜", "便宜"),
		words(cVRAM, "", "显存", "vram", "gpu memory", "gpu mem", "hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5", "gddr6",
			"gddr6x", "gddr7", "video memory", "显存容量"),
		words(cRAM, "", "内存", "系统内存", "内存容量", "ram", "memory", "system memory", "ddr4", "ddr5"),
		words(cCPU, "", "cpu", "vcpu", "cores", "核数", "cpu 核数"),
		words(cGPUCount, "", "gpus", "gpu count", "gpu 数量", "卡数", "显卡数量", "gpu 数", "num gpus"),
		words(cBWFigure, "", "port", "uplink", "connection", "network port", "网口", "公网"),
		words(cInfra, "", "infiniband", "ib", "nvlink", "roce", "rdma", "内网"),
		words(cCurrency, "CNY", "人民币", "rmb", "cny", "单位: 元", "单位:元", "(元)"),
		words(cCurrency, "USD", "美元", "usd"),
		words(cCurrency, "EUR", "欧元", "eur"),
		words(cCurrency, "GBP", "英镑", "gbp"),
	)
	for _, p := range platforms {
		for _, n := range p.names {
			w = append(w, word{n, cPlatform, p.canon})
		}
	}
	for _, m := range gpuModels {
		for _, n := range m.names {
			w = append(w, word{n, cModel, m.canon})
		}
	}
	return w
}

// platforms are the platforms the reader names (the value is the name as
// given here; the caller resolves it through the alias tables).
var platforms = []struct {
	names []string
	canon string
}{
	{[]string{"autodl", "autodl 算力云"}, "AutoDL"},
	{[]string{"晨涧云"}, "晨涧云"},
	{[]string{"恒源云"}, "恒源云"},
	{[]string{"gpushare"}, "GPUShare"},
	{[]string{"hostkey"}, "HOSTKEY"},
	{[]string{"runpod"}, "RunPod"},
	{[]string{"lambda", "lambda labs", "lambda cloud"}, "Lambda"},
	{[]string{"vast.ai", "vastai"}, "Vast.ai"},
	{[]string{"coreweave"}, "CoreWeave"},
	{[]string{"genesis cloud"}, "Genesis Cloud"},
	{[]string{"阿里云"}, "阿里云"},
	{[]string{"alibaba cloud", "aliyun"}, "Alibaba Cloud"},
	{[]string{"腾讯云"}, "腾讯云"},
	{[]string{"tencent cloud"}, "Tencent Cloud"},
	{[]string{"华为云"}, "华为云"},
	{[]string{"huawei cloud"}, "Huawei Cloud"},
	{[]string{"火山引擎"}, "火山引擎"},
	{[]string{"volcengine"}, "Volcengine"},
	{[]string{"百度智能云"}, "百度智能云"},
	{[]string{"矩池云"}, "矩池云"},
	{[]string{"揽睿星舟"}, "揽睿星舟"},
	{[]string{"智星云"}, "智星云"},
	{[]string{"featurize"}, "Featurize"},
	{[]string{"aws", "amazon web services"}, "AWS"},
	{[]string{"google cloud", "gcp"}, "Google Cloud"},
	{[]string{"azure"}, "Azure"},
	{[]string{"paperspace"}, "Paperspace"},
	{[]string{"hetzner"}, "Hetzner"},
	{[]string{"ovhcloud"}, "OVHcloud"},
	{[]string{"ucloud"}, "UCloud"},
}

// gpuModels are the cards the reader names: the value is the card's name
// without its maker or memory (docs/RULES.md §22.3). Bare numbers ("4090")
// are names of GeForce cards only.
var gpuModels = []struct {
	names []string
	canon string
}{
	{[]string{"rtx 6000 ada", "6000 ada"}, "RTX 6000 Ada"},
	{[]string{"rtx pro 6000"}, "RTX PRO 6000"},
	{[]string{"rtx 5000 ada"}, "RTX 5000 Ada"},
	{[]string{"rtx 4000 ada"}, "RTX 4000 Ada"},
	{[]string{"rtx a6000", "a6000"}, "RTX A6000"},
	{[]string{"rtx a5000", "a5000"}, "RTX A5000"},
	{[]string{"rtx a4000", "a4000"}, "RTX A4000"},
	{[]string{"rtx 5090", "5090"}, "RTX 5090"},
	{[]string{"rtx 5080", "5080"}, "RTX 5080"},
	{[]string{"rtx 4090d", "4090d"}, "RTX 4090D"},
	{[]string{"rtx 4090", "4090"}, "RTX 4090"},
	{[]string{"rtx 4080 super", "4080 super"}, "RTX 4080 SUPER"},
	{[]string{"rtx 4080", "4080"}, "RTX 4080"},
	{[]string{"rtx 4070 ti", "4070 ti", "4070ti"}, "RTX 4070 Ti"},
	{[]string{"rtx 4070"}, "RTX 4070"},
	{[]string{"rtx 3090 ti", "3090 ti", "3090ti"}, "RTX 3090 Ti"},
	{[]string{"rtx 3090", "3090"}, "RTX 3090"},
	{[]string{"rtx 3080 ti", "3080 ti", "3080ti"}, "RTX 3080 Ti"},
	{[]string{"rtx 3080", "3080"}, "RTX 3080"},
	{[]string{"rtx 3060"}, "RTX 3060"},
	{[]string{"rtx 2080 ti", "2080ti"}, "RTX 2080 Ti"},
	{[]string{"rtx 2080"}, "RTX 2080"},
	{[]string{"h100"}, "H100"},
	{[]string{"h200"}, "H200"},
	{[]string{"h800"}, "H800"},
	{[]string{"h20"}, "H20"},
	{[]string{"gh200"}, "GH200"},
	{[]string{"b200"}, "B200"},
	{[]string{"gb200"}, "GB200"},
	{[]string{"b100"}, "B100"},
	{[]string{"a100"}, "A100"},
	{[]string{"a800"}, "A800"},
	{[]string{"a10g"}, "A10G"},
	{[]string{"a10"}, "A10"},
	{[]string{"a40"}, "A40"},
	{[]string{"a30"}, "A30"},
	{[]string{"l40s"}, "L40S"},
	{[]string{"l40"}, "L40"},
	{[]string{"l20"}, "L20"},
	{[]string{"l4"}, "L4"},
	{[]string{"v100s"}, "V100S"},
	{[]string{"v100"}, "V100"},
	{[]string{"t4"}, "T4"},
	{[]string{"p100"}, "P100"},
	{[]string{"p40"}, "P40"},
	{[]string{"mi300x"}, "MI300X"},
	{[]string{"mi325x"}, "MI325X"},
	{[]string{"mi250x"}, "MI250X"},
	{[]string{"mi250"}, "MI250"},
	{[]string{"mi210"}, "MI210"},
	{[]string{"radeon ai pro r9700", "r9700"}, "Radeon AI PRO R9700"},
	{[]string{"radeon pro w7900", "w7900"}, "Radeon PRO W7900"},
}

// lexicon is the compiled lexicon: for each first rune, its words,
// longest first.
type lexicon struct {
	byFirst map[rune][]lexWord
}

type lexWord struct {
	text []rune
	cls  class
	arg  string
	// plural allows an English "s" after the word.
	plural bool
}

var lex = buildLexicon(lexiconWords())

func buildLexicon(ws []word) lexicon {
	l := lexicon{byFirst: map[rune][]lexWord{}}
	for _, w := range ws {
		rs := []rune(w.text)
		if len(rs) == 0 {
			continue
		}
		last := rs[len(rs)-1]
		lw := lexWord{text: rs, cls: w.cls, arg: w.arg,
			plural: isASCIIAlnum(last) && last != 's' && w.cls != cPlatform && w.cls != cCurrency && (isASCIILetter(last) || w.cls == cModel)}
		l.byFirst[rs[0]] = append(l.byFirst[rs[0]], lw)
	}
	for k, list := range l.byFirst {
		sort.SliceStable(list, func(i, j int) bool { return len(list[i].text) > len(list[j].text) })
		l.byFirst[k] = list
	}
	return l
}

// match returns the end of w matched at i in n, or -1. A space of the word
// matches any run of spaces (none too); an English word must stand alone
// (no ASCII letter or digit touches it).
func (w lexWord) match(n []rune, i int) int {
	if isASCIIAlnum(w.text[0]) && i > 0 && isASCIIAlnum(n[i-1]) &&
		!(w.cls == cModel && n[i-1] == 'x' && i > 1 && isDigit(n[i-2])) { // "8xH100"
		return -1
	}
	j := i
	for _, r := range w.text {
		if r == ' ' {
			for j < len(n) && n[j] == ' ' {
				j++
			}
			continue
		}
		if j >= len(n) || n[j] != r {
			return -1
		}
		j++
	}
	last := w.text[len(w.text)-1]
	if isASCIIAlnum(last) && j < len(n) && isASCIIAlnum(n[j]) {
		if w.plural && n[j] == 's' && (j+1 >= len(n) || !isASCIIAlnum(n[j+1])) {
			return j + 1
		}
		return -1
	}
	return j
}

// scanLexicon finds every word of the lexicon in the message: at each
// position the longest word, and no word lying inside a longer one found
// before it (不含税 hides 含税).
func (d *doc) scanLexicon() {
	n := d.n
	cover := 0
	for i := 0; i < len(n); i++ {
		list := lex.byFirst[n[i]]
		for _, w := range list {
			e := w.match(n, i)
			if e < 0 {
				continue
			}
			if e > cover {
				d.hits = append(d.hits, hit{s: i, e: e, cls: w.cls, arg: w.arg})
				cover = e
			}
			break
		}
	}
}
