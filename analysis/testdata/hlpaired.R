# Reference values for analysis.HodgesLehmannPaired (paired Hodges-Lehmann
# shift and the signed-rank p-value), computed with R (Debian r-base-core).
# Run from analysis/testdata:  Rscript hlpaired.R > hlpaired.csv
x1 <- c(1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30)
y1 <- c(0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29)
x2 <- c(10.2, 9.8, 11.5, 10.9, 9.1, 12.3, 10.05, 11.1, 9.55, 10.7, 12.9, 9.95)
y2 <- c(9.7, 10.1, 10.2, 10.0, 9.4, 11.0, 9.9, 10.3, 9.8, 10.35, 11.4, 10.15)
x3 <- c(3.1, 2.2, 4.7, 1.9, 3.3, 2.8)
y3 <- c(2.0, 2.5, 3.1, 2.6, 2.35, 2.45)
cat("case,alt,level,estimate,lo,hi,p\n")
for (case in list(list("a", x1, y1), list("b", x2, y2), list("c", x3, y3))) {
  for (alt in c("two.sided", "greater", "less")) {
    for (lev in c(0.95, 0.9)) {
      w <- wilcox.test(case[[2]], case[[3]], paired = TRUE, conf.int = TRUE, conf.level = lev, alternative = alt, exact = TRUE)
      cat(sprintf("%s,%s,%g,%.17g,%.17g,%.17g,%.17g\n", case[[1]], alt, lev, w$estimate, w$conf.int[1], w$conf.int[2], w$p.value))
    }
  }
}
