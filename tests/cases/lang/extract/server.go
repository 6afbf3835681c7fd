package server

import (
	"fmt"
	"example.com/app/internal/store"
)

// import "example.com/ghost"

const MaxConns = 10

type Server struct {
	db *store.DB
}

func New(db *store.DB) *Server {
	return &Server{db: db}
}

func (s *Server) Handle(name string) error {
	fmt.Println("store.Get(x)")
	return s.db.Get(name)
}
