module github.com/cardscan/cardscan/fuzz

go 1.26.0

require github.com/cardscan/cardscan v0.0.0

replace github.com/cardscan/cardscan => ../
