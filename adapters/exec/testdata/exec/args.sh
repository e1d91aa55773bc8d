#!/bin/sh
# Prints each argument in brackets on a line of its own.
printf "[%s]\n" "$@"
