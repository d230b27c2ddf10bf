package auth

import "errors"

// PasswordMessageID words a password policy failure.
func PasswordMessageID(err error) string {
	switch {
	case errors.Is(err, ErrPasswordTooShort):
		return "password.too_short"
	case errors.Is(err, ErrPasswordTooLong):
		return "password.too_long"
	case errors.Is(err, ErrPasswordCommon):
		return "password.common"
	case errors.Is(err, ErrPasswordBlank):
		return "password.blank"
	case errors.Is(err, ErrPasswordRepeated):
		return "password.repeated"
	case errors.Is(err, ErrPasswordSequence):
		return "password.sequence"
	case errors.Is(err, ErrPasswordPersonal):
		return "password.personal"
	default:
		return "password.invalid"
	}
}
