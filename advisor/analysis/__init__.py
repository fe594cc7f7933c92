"""One file in, findings out: decode, guard, parse (whole or in slices), run the rules, place findings."""
