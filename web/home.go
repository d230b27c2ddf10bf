package web

// HomeView is the home page's view model.
type HomeView struct {
	Page Page
}
