# The R equivalent of `reprobench analyze` + `reprobench compare --by mpi_lib`
# on one raw file (paper 000 Alg. 6): per (call, msize, np, datatype, label)
# group and per mpirun, Tukey filter (k = 1.5, type-7 quartiles), median and
# mean; pooled median with its order-statistic CI; then the Wilcoxon test on
# per-mpirun medians between the two mpi_lib values.
# Usage: Rscript analyze.R FILE.csv
args <- commandArgs(trailingOnly = TRUE)
t0 <- proc.time()
d <- read.csv(args[1], colClasses = c("character", "integer", "integer", "character", "numeric", "numeric",
                                      "character", "integer", "integer", "numeric", "integer", "character"))
t1 <- proc.time()
d <- d[d$errorcode == 0 & is.finite(d$runtime_s) & d$runtime_s >= 0, ]
key <- paste(d$call, d$msize_bytes, d$np, d$datatype, d$mpi_lib, sep = "/")
tukey <- function(x) {
  q <- quantile(x, c(0.25, 0.75), type = 7, names = FALSE); i <- q[2] - q[1]
  x[x >= q[1] - 1.5 * i & x <= q[2] + 1.5 * i]
}
per <- split(d$runtime_s, list(key, d$run_id, d$mpirun), drop = TRUE)
filt <- lapply(per, tukey)
gk <- sub("\\.[^.]*\\.[^.]*$", "", names(filt))  # strip ".run_id.mpirun"
meds <- split(vapply(filt, median, 0), gk)
pooled <- lapply(split(filt, gk), function(l) sort(unlist(l, use.names = FALSE)))
res <- do.call(rbind, lapply(names(pooled), function(k) {
  x <- pooled[[k]]; n <- length(x)
  z <- qnorm(0.975); l <- floor((n - z * sqrt(n)) / 2); u <- ceiling(1 + (n + z * sqrt(n)) / 2)
  data.frame(group = k, n = n, median = median(x), lo = x[max(l, 1)], hi = x[min(u, n)], mean = mean(x),
             p99 = quantile(x, 0.99, type = 7, names = FALSE), n_mpiruns = length(meds[[k]]))
}))
t2 <- proc.time()
base <- sub("/[^/]*$", "", names(meds))
cmp <- do.call(rbind, lapply(unique(base), function(b) {
  ks <- names(meds)[base == b]
  if (length(ks) < 2) return(NULL)
  w <- wilcox.test(meds[[ks[1]]], meds[[ks[2]]])
  data.frame(group = b, ratio = median(meds[[ks[2]]]) / median(meds[[ks[1]]]), p = w$p.value)
}))
t3 <- proc.time()
cat(sprintf("R: read %.1f s, analyze %.1f s, compare %.1f s (elapsed), %d groups, %d comparisons\n",
            (t1 - t0)[["elapsed"]], (t2 - t1)[["elapsed"]], (t3 - t2)[["elapsed"]], nrow(res), nrow(cmp)))
print(head(cmp, 3))
