// Empty: the package exists to build two of dropshot's examples (examples/*.rs, copied by install.sh).
