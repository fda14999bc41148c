# Reference values for package analysis, computed with R (Debian r-base-core).
# Run from analysis/testdata:  Rscript reference.R
# Writes data.csv (name,i,value: the fixture samples) and reference.csv
# (kind,a,b,param,field,value: one expected number per row).
# Values are printed with 17 significant digits; the Go tests compare them to
# 1e-6 relative (see reference_test.go for the documented exceptions).
set.seed(20261122)
d <- list(
  n1 = c(3.5),
  n2 = c(2.25, 1.5),
  n3 = c(1.2, 3.4, 2.2),
  n4 = c(5.1, 4.9, 6.3, 5.5),
  n5 = c(10.2, 9.8, 11.5, 10.9, 9.1),
  ties = c(1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 7, 7),
  ties2 = c(2, 3, 3, 4, 5, 5, 5, 6, 8, 8),
  n30 = round(rnorm(30, 100, 10), 6),
  n30b = round(rnorm(30, 106, 12), 6),
  skewed = round(rlnorm(200, 0, 0.8), 8),
  bimodal = round(c(rnorm(60, 10, 1), rnorm(40, 20, 1.5)), 8),
  n5000 = round(rlnorm(5000, log(2e-6), 0.3), 12),
  n5000b = round(rlnorm(5000, log(2.02e-6), 0.3), 12)
)
dat <- do.call(rbind, lapply(names(d), function(n) data.frame(name = n, i = seq_along(d[[n]]), value = sprintf("%.17g", d[[n]]))))
write.csv(dat, "data.csv", row.names = FALSE, quote = FALSE)

out <- list()
add <- function(kind, a, b, param, field, value) {
  out[[length(out) + 1]] <<- data.frame(kind = kind, a = a, b = b, param = param, field = field,
                                         value = sprintf("%.17g", as.numeric(value)))
}
tryv <- function(expr) tryCatch(expr, error = function(e) NA, warning = function(w) suppressWarnings(expr))

# Order-statistic CI of the p-quantile (paper 002 §3.1.3): exact ranks for
# n <= 1000; normal-approximation ranks (z > 0) widened until the binomial
# coverage reaches the level above.
qci <- function(x, p, level) {
  x <- sort(x); n <- length(x); a <- 1 - level
  if (n <= 1000) {
    l <- qbinom(a / 2, n, p); u <- qbinom(1 - a / 2, n, p) + 1
  } else {
    z <- qnorm(1 - a / 2); np <- n * p; s <- sqrt(np * (1 - p))
    l <- floor(np - z * s); u <- ceiling(1 + np + z * s)
    while (l >= 1 && u <= n && pbinom(u - 1, n, p) - pbinom(l - 1, n, p) < level) { l <- l - 1; u <- u + 1 }
  }
  if (l < 1 || u > n) return(c(NA, NA, NA, NA, NA))
  c(x[l], x[u], l, u, pbinom(u - 1, n, p) - pbinom(l - 1, n, p))
}

for (n in names(d)) {
  x <- d[[n]]
  for (p in c(0, 0.01, 0.25, 0.5, 0.75, 0.99, 1)) {
    add("quantile7", n, "", p, "value", quantile(x, p, type = 7, names = FALSE))
    add("quantile1", n, "", p, "value", quantile(x, p, type = 1, names = FALSE))
  }
  add("mean", n, "", "", "value", mean(x))
  if (length(x) >= 2) {
    add("sd", n, "", "", "value", sd(x))
    for (lv in c(0.9, 0.95, 0.99)) {
      ci <- t.test(x, conf.level = lv)$conf.int
      add("meanci", n, "", lv, "lo", ci[1]); add("meanci", n, "", lv, "hi", ci[2])
    }
  }
  for (lv in c(0.9, 0.95, 0.99)) for (p in c(0.5, 0.25, 0.9, 0.99)) {
    r <- qci(x, p, lv)
    f <- c("lo", "hi", "lorank", "hirank", "conf")
    for (k in 1:5) add(paste0("qci_", p), n, "", lv, f[k], r[k])
  }
  if (length(x) >= 3 && length(x) <= 5000) {
    s <- shapiro.test(x)
    add("shapiro", n, "", "", "W", s$statistic); add("shapiro", n, "", "", "p", s$p.value)
  }
  if (length(x) >= 2) {
    mu <- median(x); sg <- mad(x) + 1e-3 * abs(mu)
    for (alt in c("two.sided", "less", "greater")) {
      k <- suppressWarnings(ks.test(x, "pnorm", mu, sg, alternative = alt))
      add("ks1", n, "", alt, "D", k$statistic); add("ks1", n, "", alt, "p", k$p.value)
      add("ks1", n, "", alt, "mu", mu); add("ks1", n, "", alt, "sigma", sg)
    }
  }
  if (length(x) >= 6) {
    a <- acf(x, lag.max = 5, plot = FALSE)$acf
    for (h in 0:5) add("acf", n, "", h, "r", a[h + 1])
  }
}

pairs <- list(c("n5", "n30"), c("n30", "n30b"), c("ties", "ties2"), c("skewed", "bimodal"),
              c("n1", "n3"), c("n3", "n4"), c("n4", "n5"), c("n5000", "n5000b"), c("n30", "skewed"),
              c("n2", "ties"))
for (pr in pairs) {
  x <- d[[pr[1]]]; y <- d[[pr[2]]]
  for (alt in c("two.sided", "less", "greater")) {
    w <- suppressWarnings(wilcox.test(x, y, alternative = alt))
    add("wilcox", pr[1], pr[2], alt, "W", w$statistic); add("wilcox", pr[1], pr[2], alt, "p", w$p.value)
    if (length(x) >= 2 && length(y) >= 2) {
      t <- t.test(x, y, alternative = alt)
      add("welch", pr[1], pr[2], alt, "t", t$statistic); add("welch", pr[1], pr[2], alt, "df", t$parameter)
      add("welch", pr[1], pr[2], alt, "p", t$p.value)
    }
    if (alt == "two.sided" && length(x) >= 2 && length(y) >= 2) {
      # Effect sizes: Cohen's d with the pooled SD; A12 = W/(mn).
      sp <- sqrt(((length(x) - 1) * var(x) + (length(y) - 1) * var(y)) / (length(x) + length(y) - 2))
      add("effect", pr[1], pr[2], alt, "d", (mean(x) - mean(y)) / sp)
      add("effect", pr[1], pr[2], alt, "a12", w$statistic / (length(x) * length(y)))
    }
    k <- suppressWarnings(ks.test(x, y, alternative = alt))
    add("ks2", pr[1], pr[2], alt, "D", k$statistic); add("ks2", pr[1], pr[2], alt, "p", k$p.value)
    if (length(x) * length(y) <= 1e6) {
      h <- suppressWarnings(wilcox.test(x, y, alternative = alt, conf.int = TRUE, conf.level = 0.95))
      add("hl", pr[1], pr[2], alt, "est", h$estimate)
      add("hl", pr[1], pr[2], alt, "lo", h$conf.int[1]); add("hl", pr[1], pr[2], alt, "hi", h$conf.int[2])
    }
  }
}

triples <- list(c("n30", "n30b", "skewed"), c("ties", "ties2", "n5"), c("n3", "n4", "n5"), c("skewed", "bimodal"))
for (tr in triples) {
  v <- unlist(d[tr]); g <- factor(rep(seq_along(tr), sapply(d[tr], length)))
  kw <- kruskal.test(v, g)
  nm <- paste(tr, collapse = "+")
  add("kruskal", nm, "", "", "H", kw$statistic); add("kruskal", nm, "", "", "p", kw$p.value)
  an <- oneway.test(v ~ g, var.equal = TRUE)
  add("anova", nm, "", "", "F", an$statistic); add("anova", nm, "", "", "p", an$p.value)
  add("anova", nm, "", "", "df2", an$parameter[2])
}

res <- do.call(rbind, out)
write.csv(res, "reference.csv", row.names = FALSE, quote = FALSE)
cat(R.version.string, "\n")

# Exact one-sided two-sample KS p-values with ties by full enumeration of
# the permutations (R 4.2.2's ks.test counts the opposite direction here).
perm <- function(x, y, alt) {
  w <- c(x, y); s <- sort(unique(w)); cmb <- combn(length(w), length(x))
  D <- function(ix) { e <- ecdf(w[ix])(s) - ecdf(w[-ix])(s); if (alt == "greater") max(e) else max(-e) }
  d0 <- D(seq_along(x)); mean(apply(cmb, 2, D) >= d0 - 1e-9)
}
extra <- list()
for (pr in list(c("n2", "ties"), c("n3", "ties"), c("n4", "ties2"))) for (alt in c("less", "greater"))
  extra[[length(extra) + 1]] <- data.frame(kind = "ks2perm", a = pr[1], b = pr[2], param = alt, field = "p",
                                            value = sprintf("%.17g", perm(d[[pr[1]]], d[[pr[2]]], alt)))
write.table(do.call(rbind, extra), "reference.csv", append = TRUE, sep = ",", row.names = FALSE,
            col.names = FALSE, quote = FALSE)

# Paired Wilcoxon signed-rank test (compare --by on levels that ran in the
# same mpiruns): wilcox.test(x, y, paired = TRUE), exact without ties or
# zero differences for n < 50, else the normal approximation with tie and
# continuity correction. The extra paired samples are appended to data.csv.
pd <- list(
  pa5 = c(1.1, 2.3, 3.1, 4.8, 5.2), pb5 = c(1.5, 2.0, 3.9, 5.5, 6.1),
  pza = c(1, 2, 3, 4, 5, 6, 7, 8), pzb = c(1, 2.5, 2, 4, 6.5, 5, 9, 8.25),
  pta = c(10, 11, 12, 13, 14, 15, 16, 17, 18, 19),
  ptb = c(10, 11, 12, 13, 14, 15, 16, 17, 18, 19) + c(1, -1, 2, 2, -2, 3, 1, 0.5, -3, 4),
  skewed60 = d$skewed[1:60], bimodal60 = d$bimodal[1:60]
)
pdat <- do.call(rbind, lapply(names(pd), function(n) data.frame(name = n, i = seq_along(pd[[n]]), value = sprintf("%.17g", pd[[n]]))))
write.table(pdat, "data.csv", append = TRUE, sep = ",", row.names = FALSE, col.names = FALSE, quote = FALSE)
all <- c(d, pd)
sr <- list()
for (pr in list(c("pa5", "pb5"), c("pza", "pzb"), c("pta", "ptb"), c("n30", "n30b"), c("n5000", "n5000b"),
                c("skewed60", "bimodal60"))) {
  x <- all[[pr[1]]]; y <- all[[pr[2]]]
  for (alt in c("two.sided", "less", "greater")) {
    w <- suppressWarnings(wilcox.test(x, y, paired = TRUE, alternative = alt))
    sr[[length(sr) + 1]] <- data.frame(kind = "signrank", a = pr[1], b = pr[2], param = alt,
                                        field = c("V", "p"), value = sprintf("%.17g", c(w$statistic, w$p.value)))
  }
}
write.table(do.call(rbind, sr), "reference.csv", append = TRUE, sep = ",", row.names = FALSE,
            col.names = FALSE, quote = FALSE)
