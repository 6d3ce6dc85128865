// Package config is sabotd's configuration: the TOML schema (Config and
// its tables), the defaults (Default), positioned decoding and validation
// (Load, Parse: every problem an *Error naming the file, line, column and
// key), the certificate and file checks, the mapping to the domain types
// (house rules, the RS-485 setup, the dealer schedule) and printing
// (Marshal, what `sabotd --print-config` writes). systemd/sabotd.toml
// documents every key. `sabot doctor` reads the configuration through this
// package too.
package config
