package api

import "strconv"

// Price is an amount of the shop's currency in micro-units (1.5 is
// 1_500_000): exact for every price a shop stores with up to six
// decimals, and compared without floating point.
type Price int64

// Limits of a price filter's value: enough for any shop's prices, and
// within an int64 of micro-units.
const (
	MaxPriceWholeDigits = 12
	MaxPriceDecimals    = 6
)

// PricePattern is the spelling a price filter's value must have, as the
// OpenAPI document publishes it.
const PricePattern = `^[0-9]{1,12}(\.[0-9]{1,6})?$`

// ParsePrice reads a plain decimal: one to MaxPriceWholeDigits digits,
// then optionally '.' and one to MaxPriceDecimals digits; no sign,
// exponent, thousands separator or space, which a shop's price filter
// never sends and which would make one amount many spellings.
func ParsePrice(s string) (Price, bool) {
	var whole, frac int64
	i, n := 0, len(s)
	for ; i < n && isDigit(s[i]); i++ {
		whole = whole*10 + int64(s[i]-'0')
	}
	if i == 0 || i > MaxPriceWholeDigits {
		return 0, false
	}
	if i == n {
		return Price(whole * 1e6), true
	}
	if s[i] != '.' {
		return 0, false
	}
	i++
	digits := n - i
	if digits < 1 || digits > MaxPriceDecimals {
		return 0, false
	}
	for ; i < n; i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		frac = frac*10 + int64(s[i]-'0')
	}
	for ; digits < MaxPriceDecimals; digits++ {
		frac *= 10
	}
	return Price(whole*1e6 + frac), true
}

// String is the price's canonical spelling: no leading zeros but the one
// before a '.', no trailing zeros after it, and no '.' for a whole amount
// ("12", "12.5", "0.99").
func (p Price) String() string {
	var buf [24]byte
	return string(p.append(buf[:0]))
}

func (p Price) append(b []byte) []byte {
	if p < 0 {
		b = append(b, '-')
		p = -p
	}
	b = strconv.AppendInt(b, int64(p/1e6), 10)
	frac := int64(p % 1e6)
	if frac == 0 {
		return b
	}
	b = append(b, '.')
	for div := int64(1e5); frac > 0; div /= 10 {
		b = append(b, byte('0'+frac/div))
		frac %= div
	}
	return b
}

// canonicalPrice reports whether s is a price in its canonical spelling
// (Price.String), without allocating: the cache's hit path checks it.
func canonicalPrice(s string) bool {
	p, ok := ParsePrice(s)
	if !ok {
		return false
	}
	var buf [24]byte
	return string(p.append(buf[:0])) == s
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
