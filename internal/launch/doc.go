// Package launch holds what a command that starts measurements checks
// about its launch and its mpiruns: the size the launcher declared
// (CheckLaunch, LaunchNote), errors every rank agrees on (Agree) or that
// only one rank knows (RankError), and the stop rule of an adaptive number
// of mpiruns (MpirunRule, MpirunJudge).
package launch
