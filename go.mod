module github.com/cardscan/cardscan

go 1.26.0
