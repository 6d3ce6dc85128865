module github.com/sabot-table/sabot

go 1.26
